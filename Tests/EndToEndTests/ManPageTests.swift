import CommandLineOptions
import Foundation
import Testing

/// docs/promise-run.1: renders with groff's warnings on and nothing to
/// say, and names every option the command takes.
@Suite("The man page")
struct ManPageTests {
    static var page: String { Binary.packageRoot.appendingPathComponent("docs/promise-run.1").path }

    @Test("groff -ww renders it without a warning")
    func rendersCleanly() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/groff") else {
            let required = ProcessInfo.processInfo.environment["PROMISE_RUN_REQUIRE_TOOLS"] == "1"
            try #require(!required, "groff is required in CI: run .ci/install-deps")
            return
        }
        let outcome = try await Binary.runCommand("/usr/bin/groff", ["-ww", "-man", "-Tascii", "-P-bcou", Self.page])
        #expect(outcome.status == 0)
        #expect(outcome.stderr.isEmpty, "\(outcome.stderr)")
        #expect(outcome.stdout.contains("EXIT STATUS"))
    }

    @Test("every option of the run command is in it")
    func namesEveryOption() async throws {
        let text = try String(contentsOfFile: Self.page, encoding: .utf8).replacing("\\-", with: "-")
        for option in Option.of(.run).map(\.spec.long) {
            #expect(text.contains(option), "\(option) is not in the man page")
        }
        for command in CommandName.words {
            #expect(text.contains(".B \(command)") || text.contains("promise-run \(command)"), "\(command) is not in the man page")
        }
    }
}
