import Foundation
import Testing

/// A real editor: Neovim, headless, with its built-in LSP client attached to
/// `promise-run lsp`, opening a workflow with an error; its Lua API reads
/// the diagnostics, a completion and a hover back (Tests/Fixtures/nvim-lsp.lua).
@Suite("End to end: Neovim with promise-run lsp")
struct NeovimLanguageServerTests {
    /// Neovim, when installed (.ci/install-deps installs it).
    static let nvim = ["/usr/bin/nvim", "/usr/local/bin/nvim"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Runs Neovim headless in `space` with a Lua fixture (`arguments`
    /// first: a file to edit), and reads the JSON it wrote.
    private func runNeovim(_ nvim: String, _ fixture: String, in space: Workspace, _ arguments: [String] = []) async throws -> [String: Any] {
        let binary = try #require(Binary.url?.path)
        let result = space.path("result.json")
        let outcome = try await Binary.runCommand(
            nvim,
            ["--headless", "-u", "NONE", "-i", "NONE", "-n"] + arguments
                + ["-c", "luafile \(TestServers.fixture(fixture))"],
            in: space.folder,
            environment: [
                "PROMISE_RUN": binary, "NVIM_RESULT": result,
                "XDG_STATE_HOME": space.path("state"),
                "XDG_DATA_HOME": space.path("data"),
            ])
        #expect(outcome.status == 0, "\(outcome.stdout)\(outcome.stderr)")
        let data = try #require(FileManager.default.contents(atPath: result), "Neovim wrote no result: \(outcome.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }
    @Test("Neovim shows check's error, completes the step's attributes, hovers a keyword and shows the last run's result as a code lens")
    func neovim() async throws {
        guard let nvim = Self.nvim else { return }  // Neovim is not on this machine
        let space = try Workspace()
        defer { space.remove() }
        let text = """
            workflow "ci"
            var base = "http://127.0.0.1:8080"
            build: sh "make" {
              timeout 5m
              expect exti 0
            }

            """
        // A run first, of the file as it was before the typo and the make:
        // the store's last result for the lens.
        try space.write("ci.workflow", text.replacingOccurrences(of: "exti", with: "exit").replacingOccurrences(of: "\"make\"", with: "\"true\""))
        #expect(try await Binary.run(["ci.workflow"], in: space.folder).status == 0)
        try space.write("ci.workflow", text)
        let json = try await runNeovim(nvim, "nvim-lsp.lua", in: space, ["ci.workflow"])
        #expect(json["attached"] as? Bool == true)
        let diagnostics = json["diagnostics"] as? [[String: Any]] ?? []
        #expect(diagnostics.count == 1, "\(diagnostics)")
        #expect(diagnostics.first?["line"] as? Int == 4)
        #expect(diagnostics.first?["col"] as? Int == 9)
        #expect((diagnostics.first?["message"] as? String)?.contains("did you mean 'exit'?") == true)
        let completion = json["completion"] as? [String] ?? []
        #expect(completion.contains("timeout") && completion.contains("sources") && completion.contains("expect"), "\(completion)")
        #expect((json["hover"] as? String)?.contains("runs a command with /bin/sh -c") == true, "\(json["hover"] ?? "")")
        let lenses = json["lenses"] as? [String] ?? []
        #expect(lenses.count == 1 && lenses.first?.hasPrefix("2: ✓ ") == true && endsWithRecentTime(lenses.first), "\(lenses)")
    }

    @Test(
        "a project split with include in Neovim: no false error in the library, an unsaved fix seen by the includer, rename from the library, a quick fix applied, allow-fa completed"
    )
    func project() async throws {
        guard let nvim = Self.nvim else { return }  // Neovim is not on this machine
        let space = try Workspace()
        defer { space.remove() }
        try space.write("main.workflow", "var project = \"demo\"\ninclude \"lib.workflow\"\nlast: sh \"echo {{built}} {{compile.exit}}\"\n")
        // On disk, the library misspells the variable main uses.
        try space.write("lib.workflow", "var bulit = \"yes\"\ncompile: sh \"make {{project}}\"\n")
        try space.write("fix.workflow", "a: sh \"true\" {\n  expect exti 0\n  allow-fa\n}\n")
        let json = try await runNeovim(nvim, "nvim-lsp-project.lua", in: space)
        #expect(json["lib_published"] as? Bool == true)
        #expect((json["lib"] as? [String])?.isEmpty == true, "a false error in the library: \(json["lib"] ?? "")")
        #expect((json["main"] as? [String])?.isEmpty == true, "the includer did not see the unsaved fix: \(json["main"] ?? "")")
        #expect((json["main_after_rename"] as? [String])?.last == "last: sh \"echo {{built}} {{build.exit}}\"", "\(json["main_after_rename"] ?? "")")
        #expect((json["actions"] as? [String])?.first == "Change 'exti' to 'exit'", "\(json["actions"] ?? "")")
        #expect(json["fix"] as? [String] == ["a: sh \"true\" {", "  expect exit 0", "  allow-failure", "}"], "\(json["fix"] ?? "")")
    }
}
