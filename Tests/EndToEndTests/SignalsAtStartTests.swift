import Foundation
import Testing

/// Issue 20's start-up race: a stopping signal at any moment from the
/// first instant the program's own code runs (its constructor installs the
/// handler, before main; the dynamic loader's first millisecond or so
/// before that is out of any program's reach) always ends the run with
/// 128 + the signal, writes the report, and runs the ensure when the step
/// had started. The moments spread over the first 45 ms: reading the
/// command line, reading and checking the workflow, starting the run.
///
/// Driven by Tests/Fixtures/signal-race.py, in a process of its own: in
/// the test process, other suites' child reaping was seen to take the
/// runner's exit status.
@Suite("End to end: signals at any moment of the start")
struct SignalsAtStartTests {
    @Test func aSignalAtAnyMomentIsNeverLostIgnoredOrFatal() async throws {
        let lines = try await Self.runFixture("signal-race.py", ["60"])
        let problems = lines.filter { $0 != "ok" && !$0.hasPrefix("done ") }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        let done = try #require(lines.last?.split(separator: " "))
        #expect(done.count == 3 && done[1] == "60", "\(lines.last ?? "")")
        // Most tries land after the step started, some before: the race is
        // exercised on both sides.
        #expect((Int(done.count == 3 ? done[2] : "") ?? 0) > 0, "\(lines.last ?? "")")
    }

    /// Runs a fixture of Tests/Fixtures with the binary, a folder of its
    /// own and `arguments`; the lines it printed (it must exit 0).
    static func runFixture(_ name: String, _ arguments: [String]) async throws -> [String] {
        let space = try Workspace()
        defer { space.remove() }
        let binary = try #require(Binary.url).path
        let outcome = try await Binary.runCommandOffPool(
            "/usr/bin/env",
            [
                "python3", TestServers.fixture(name), binary,
                space.folder.path,
            ] + arguments)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        return outcome.stdout.split(separator: "\n").map(String.init)
    }

    @Test("an interrupt while the workflow is checked still writes the reports, saying nothing ran")
    func anInterruptDuringTheCheckWritesTheReports() async throws {
        let space = try Workspace()
        defer { space.remove() }
        // 300,000 steps: checking takes a second or two, the signal comes
        // in the middle of it.
        try space.write("huge.workflow", "workflow \"huge\"\n" + (0..<300_000).map { "log \"step \($0)\"\n" }.joined())
        let binary = try #require(Binary.url).path
        let report = space.path("report.json")
        let junit = space.path("junit.xml")
        let outcome = try await Binary.runCommandOffPool(
            "/usr/bin/env",
            [
                "python3", TestServers.fixture("signal-after.py"), "0.3", "\(SIGTERM)",
                binary, "--report", "json=\(report)", "--report", "junit=\(junit)", space.path("huge.workflow"),
            ])
        #expect(outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "143", "\(outcome.stdout)\(outcome.stderr)")
        #expect(outcome.stderr.contains("SIGTERM while reading the workflow; nothing ran"), "\(outcome.stderr)")
        let text = try #require(try? String(contentsOfFile: report, encoding: .utf8), "no JSON report")
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(parsed["status"] as? String == "interrupted")
        #expect((parsed["steps"] as? [Any])?.isEmpty == true)
        #expect(FileManager.default.fileExists(atPath: junit))
    }
}
