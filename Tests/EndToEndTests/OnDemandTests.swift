import Foundation
import LSPTestSupport
import Testing

/// `on-demand` (docs/command.md "On demand"), end to end with the
/// built binary: what an ordinary run leaves out, what a target brings in,
/// what `check` refuses, and what `list`, `graph` and `--dry-run` show.
/// Whether a step ran is read from the files it writes.
/// See docs/language.md, 'Incremental steps'.
@Suite("End to end: on-demand targets")
struct OnDemandTests {
    static let build = """
        workflow "build"

        clean: sh "rm -rf build prefix" {
          on-demand
        }
        compile: sh "mkdir -p build && echo app > build/app"
        install: sh "mkdir -p prefix/bin && cp build/app prefix/bin/app" {
          desc "copy the program into prefix/bin"
          on-demand
        }
        """

    /// A workspace with `build.workflow` and a file `clean` would remove.
    private func project() throws -> Workspace {
        let space = try Workspace()
        try space.write("build.workflow", Self.build)
        try space.write("build/old.o", "stale")
        return space
    }

    private func exists(_ space: Workspace, _ name: String) -> Bool {
        FileManager.default.fileExists(atPath: space.path(name))
    }

    @Test("an ordinary run leaves them out: skipped, saying how to run them, in every report, and no failure of the run")
    func ordinaryRun() async throws {
        let space = try project()
        defer { space.remove() }
        let outcome = try await Binary.run(
            [
                "--color", "never", "--report", "json=report.json", "--report", "junit=junit.xml",
                "--report", "markdown=report.md", "--report", "html=report.html", "build.workflow",
            ],
            in: space.folder)
        #expect(outcome.status == 0, "\(outcome.stdout)\(outcome.stderr)")
        #expect(exists(space, "build/app"), "compile ran")
        #expect(exists(space, "build/old.o"), "clean did not run")
        #expect(!exists(space, "prefix"), "install did not run")
        #expect(outcome.stdout.contains("- clean skipped (on demand: run it with promise-run build.workflow clean)"))
        let run = WorkflowRun(outcome: outcome, reportText: space.read("report.json"))
        #expect(run.report?["status"] as? String == "succeeded")
        #expect(run.statuses == ["clean skipped", "compile succeeded", "install skipped"])
        #expect(run.step("install")?["message"] as? String == "on demand: run it with promise-run build.workflow install")
        let junit = try JUnitShape.read(space)
        #expect(junit.problems.isEmpty, "\(junit.problems)")
        #expect(junit.failures == 0)
        #expect(space.read("junit.xml")?.contains("<skipped message=\"on demand: run it with promise-run build.workflow clean\"/>") == true)
        let markdown = try #require(space.read("report.md"))
        #expect(markdown.contains("✅") && !markdown.contains("❌"), "\(markdown)")
        #expect(markdown.contains("1 succeeded, 2 skipped"), "\(markdown)")
        #expect(space.read("report.html")?.contains("on demand: run it with promise-run build.workflow clean") == true)
    }

    @Test("named, one runs with what comes before it, in the file's order; the on-demand ones not named stay out")
    func namedTargets() async throws {
        let space = try project()
        defer { space.remove() }
        let clean = try await Binary.run(["--color", "never", "build.workflow", "clean"], in: space.folder)
        #expect(clean.status == 0, "\(clean.stdout)\(clean.stderr)")
        #expect(!exists(space, "build"), "clean ran, alone: nothing compiled after it")

        try space.write("build/old.o", "stale")
        let install = try await Binary.run(["--color", "never", "build.workflow", "install"], in: space.folder)
        #expect(install.status == 0, "\(install.stdout)\(install.stderr)")
        #expect(space.read("prefix/bin/app") == "app\n", "compile, then install")
        #expect(exists(space, "build/old.o"), "clean is on demand and not named")

        // The command line's order does not matter: the file's does.
        let both = try await Binary.run(["--color", "never", "build.workflow", "install", "clean"], in: space.folder)
        #expect(both.status == 0, "\(both.stdout)\(both.stderr)")
        #expect(!exists(space, "build/old.o"), "clean ran")
        #expect(space.read("prefix/bin/app") == "app\n", "and then compile and install")
    }

    @Test("a lane that runs needs an on-demand lane: it runs; a group named runs without its on-demand parts")
    func needsAndGroups() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write(
            "test.workflow",
            """
            checks: parallel {
              fixtures: sh "echo data > fixtures.txt" {
                on-demand
              }
              unit: sh "cat fixtures.txt > unit.txt" {
                needs fixtures
              }
              bench: sh "touch bench.txt" {
                on-demand
              }
            }
            release: sequence {
              package: sh "touch package.txt"
              publish: sh "touch publish.txt" {
                on-demand
              }
            }
            """)
        let ordinary = try await Binary.run(["--color", "never", "test.workflow"], in: space.folder)
        #expect(ordinary.status == 0, "\(ordinary.stdout)\(ordinary.stderr)")
        #expect(space.read("unit.txt") == "data\n", "fixtures ran before unit")
        #expect(!exists(space, "bench.txt") && !exists(space, "publish.txt"))
        #expect(exists(space, "package.txt"))

        try FileManager.default.removeItem(atPath: space.path("package.txt"))
        let release = try await Binary.run(["--color", "never", "test.workflow", "release"], in: space.folder)
        #expect(release.status == 0, "\(release.stdout)\(release.stderr)")
        #expect(exists(space, "package.txt") && !exists(space, "publish.txt"), "publish is on demand: naming release leaves it out")
        let publish = try await Binary.run(["--color", "never", "test.workflow", "publish"], in: space.folder)
        #expect(publish.status == 0 && exists(space, "publish.txt"))
        let bench = try await Binary.run(["--color", "never", "test.workflow", "bench"], in: space.folder)
        #expect(bench.status == 0 && exists(space, "bench.txt"))
    }

    @Test("check refuses it without a label, in a foreach body, in a catch or an ensure: exit 2, file:line:col, what to do")
    func checkRefuses() async throws {
        try await Workspace.expectCheckRefuses(
            """
            sh "rm -rf build" {
              on-demand
            }
            foreach f in ["a"] {
              each: sh "echo {{f}}" {
                on-demand
              }
            }
            a: sh "true"
            catch {
              b: sh "true" {
                on-demand
              }
            }
            ensure {
              c: sh "true" {
                on-demand
              }
            }
            """,
            with: [
                "bad.workflow:2:3: error: 'on-demand' keeps a step or group out of a run until a target names it",
                "give this one a label (name: ...)",
                "bad.workflow:6:5: error: 'on-demand' cannot be inside a foreach body",
                "bad.workflow:12:5: error: 'on-demand' cannot be inside a catch or ensure block",
                "bad.workflow:17:5: error: 'on-demand' cannot be inside a catch or ensure block",
            ])
        let space = try Workspace()
        defer { space.remove() }
        try space.write("bad.workflow", "sh \"touch ran.txt\"\nsh \"true\" {\n  on-demand\n}\n")
        let run = try await Binary.run(["bad.workflow"], in: space.folder)
        #expect(run.status == 2 && !exists(space, "ran.txt"), "nothing runs")
    }

    @Test("the docs' on-demand examples are in fmt's layout (DocsTests checks and runs them)")
    func docsExamplesAreFormatted() async throws {
        let blocks = try DocsTests.workflowBlocks().filter { $0.text.contains("on-demand") }
        #expect(blocks.count >= 2, "command.md's and cookbook.md's")
        for block in blocks {
            let text = block.text + "\n"
            let formatted = try await Binary.run(["fmt", "-"], stdin: text)
            #expect(formatted.status == 0 && formatted.stdout == text, "\(block) is not in fmt's layout:\n\(formatted.stdout)")
        }
    }

    @Test("the language server offers it in a step's block and in a group's, and explains it on hover (from the language table)")
    func languageServer() async throws {
        let client = try LSPClient()
        _ = try client.start()
        try client.open("a.workflow", "clean: sh \"rm -rf build\" {\n  on-demand\n}\ndocs: sequence {\n  \n  log \"x\"\n}\n")
        #expect(try client.diagnostics(for: client.uri("a.workflow")).isEmpty)
        func labels(_ line: Int, _ character: Int) throws -> [String] {
            let response = try client.request(
                "textDocument/completion",
                ["textDocument": ["uri": client.uri("a.workflow")], "position": lspPosition(line, character)])
            let items = (response["result"] as? [String: Any])?["items"] as? [[String: Any]] ?? []
            return items.compactMap { $0["label"] as? String }
        }
        #expect(try labels(1, 2).contains("on-demand"), "in a step's block")
        #expect(try labels(4, 2).contains("on-demand"), "in a group's block")
        let hover = try client.request(
            "textDocument/hover",
            ["textDocument": ["uri": client.uri("a.workflow")], "position": lspPosition(1, 5)])
        let text = ((hover["result"] as? [String: Any])?["contents"] as? [String: Any])?["value"] as? String ?? ""
        #expect(text.hasPrefix("**on-demand**: runs only when named as a target"), "\(text)")
        #expect(try client.stop() == 0)
    }

    @Test("list marks them; graph and --dry-run show them apart as not running, and with them named as running")
    func listGraphDryRun() async throws {
        let space = try project()
        defer { space.remove() }
        let list = try await Binary.run(["list", "--color", "never", "build.workflow"], in: space.folder)
        #expect(
            list.stdout == """
                clean    sh  (on demand: runs only when named)
                compile  sh
                install  sh  copy the program into prefix/bin (on demand: runs only when named)

                """, "\(list.stdout)")
        let json = try #require(try await Binary.run(["list", "--format", "json", "build.workflow"], in: space.folder).jsonObjects)
        #expect(json.map { $0["onDemand"] as? Bool } == [true, false, true])
        #expect(json.map { $0["target"] as? Bool } == [true, true, true], "still targets: completions offer them")

        let graph = try await Binary.run(["graph", "build.workflow"], in: space.folder)
        #expect(
            graph.stdout == """
                workflow "build"
                └─ compile: sh "mkdir -p build && echo app > build/app"

                on demand, not run (name one to run it: promise-run build.workflow LABEL)
                ├─ clean: sh "rm -rf build prefix"
                └─ install: sh "mkdir -p prefix/bin && cp build/app prefix/bin/app"

                """, "\(graph.stdout)")
        let graphJSON = try await Binary.run(["graph", "--format", "json", "build.workflow"], in: space.folder)
        let object = try JSONSerialization.jsonObject(with: Data(graphJSON.stdout.utf8)) as? [String: Any]
        let notRun = object?["onDemandNotRun"] as? [[String: Any]]
        #expect(notRun?.map { $0["label"] as? String } == ["clean", "install"])
        #expect(notRun?.allSatisfy { $0["onDemand"] as? Bool == true } == true)

        let dryRun = try await Binary.run(["--dry-run", "build.workflow", "install"], in: space.folder)
        #expect(dryRun.status == 0)
        #expect(
            dryRun.stdout.contains(
                """
                ├─ compile: sh "mkdir -p build && echo app > build/app"
                └─ install: sh "mkdir -p prefix/bin && cp build/app prefix/bin/app"  [on-demand]
                """), "\(dryRun.stdout)")
        #expect(
            dryRun.stdout.hasSuffix(
                """
                on demand, not run (name one to run it: promise-run build.workflow LABEL)
                └─ clean: sh "rm -rf build prefix"

                """), "\(dryRun.stdout)")
        #expect(exists(space, "build/old.o") && !exists(space, "build/app"), "a dry run runs nothing")
    }
}
