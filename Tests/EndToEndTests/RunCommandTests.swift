import Foundation
import Testing

@Suite("promise-run FILE, --dry-run, --help, --version, usage")
struct RunCommandTests {
    @Test func dryRunShowsResolvedValuesAndRunsNothing() async throws {
        let folder = try Binary.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let workflow = """
            var base = "http://127.0.0.1:8080"
            var name = "marker"
            touch: sh "touch {{name}}"
            http GET "{{base}}/{{env.PROMISE_RUN_TEST ?? "x"}}"

            """
        try workflow.write(to: folder.appendingPathComponent("t.workflow"), atomically: true, encoding: .utf8)
        let outcome = try await Binary.run(
            ["--dry-run", "--var", "base=http://127.0.0.1:9999", "t.workflow"], in: folder,
            environment: ["PROMISE_RUN_TEST": "health"])
        #expect(outcome.status == 0)
        #expect(
            outcome.stdout == """
                dry run: nothing runs; {{...}} is known only while running
                workflow "t"
                ├─ var base = "http://127.0.0.1:9999"
                ├─ var name = "marker"
                ├─ touch: sh "touch marker"
                └─ http GET "http://127.0.0.1:9999/health"

                """)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("marker").path))
    }

    @Test func aFileWithErrorsRunsNothing() async throws {
        let folder = try Binary.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try "touch: sh \"touch marker\"\nsleep 1\n".write(to: folder.appendingPathComponent("bad.workflow"), atomically: true, encoding: .utf8)
        let outcome = try await Binary.run(["bad.workflow"], in: folder)
        #expect(outcome.status == 2)
        #expect(outcome.stderr.hasPrefix("bad.workflow:2:7: error: missing unit in duration '1'"))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("marker").path))
    }

    @Test func varMustNameATopLevelVar() async throws {
        let outcome = try await Binary.run(["--var", "projct=x", "workflows/ci.workflow"])
        #expect(outcome.status == 2)
        #expect(
            outcome.stderr
                == "promise-run: --var 'projct' does not name a top-level var of workflows/ci.workflow; did you mean 'project'? (it declares 'project', 'build', 'cc')\n"
        )
    }

    @Test func stepsGetTheirOwnDescriptorsWhenTheRunnersStandardInputIsClosed() async throws {
        // With descriptor 0 closed, the first pipe made for a step is 0
        // itself: the child's 0, 1 and 2 must still be what the step says.
        let folder = try Binary.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let workflow = """
            workflow "closed"
            both: sh "echo out; echo err >&2" {
              expect stdout matches "^out$"
              expect stderr matches "^err$"
            }
            fed: sh "cat" {
              stdin "fed text"
              expect stdout matches "^fed text$"
            }
            none: sh "wc -c" {
              expect stdout matches "^ *0$"
            }

            """
        try workflow.write(to: folder.appendingPathComponent("closed.workflow"), atomically: true, encoding: .utf8)
        let binary = try #require(Binary.url)
        let outcome = try await Binary.runCommand(
            "/bin/sh", ["-c", "exec \"$0\" --color never closed.workflow 0<&-", binary.path],
            in: folder)
        #expect(outcome.status == 0, "\(outcome.stdout)\(outcome.stderr)")
        #expect(outcome.stdout.contains("✓ closed succeeded"))
    }

    @Test func missingFile() async throws {
        let outcome = try await Binary.run(["--dry-run", "nope.workflow"])
        #expect(outcome.status == 2)
        #expect(outcome.stderr == "promise-run: cannot read 'nope.workflow': No such file or directory\n")
    }

    @Test func dryRunFromStandardInput() async throws {
        let outcome = try await Binary.run(["--dry-run", "-"], stdin: "var a = \"1\"\nlog \"{{a}}\"\n")
        #expect(outcome.status == 0)
        #expect(outcome.stdout.hasSuffix("workflow \"stdin\"\n├─ var a = \"1\"\n└─ log \"1\"\n"))
    }

    @Test func help() async throws {
        let outcome = try await Binary.run(["--help"])
        #expect(outcome.status == 0)
        #expect(outcome.stdout.contains("usage: promise-run [run] [OPTIONS] FILE"))
        #expect(outcome.stdout.contains("exit codes:"))
        #expect(outcome.stderr == "")
    }

    @Test func version() async throws {
        let outcome = try await Binary.run(["--version"])
        #expect(outcome.status == 0)
        #expect(outcome.stdout.wholeMatch(of: /promise-run \d+\.\d+\.\d+\n/) != nil)
    }

    @Test func usageErrorsSayWhyAndShowTheUsage() async throws {
        let outcome = try await Binary.run(["--jobs", "many", "x.workflow"])
        #expect(outcome.status == 2)
        #expect(outcome.stdout == "")
        let lines = outcome.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first == "promise-run: --jobs takes a number from 1 to 4096, not 'many'")
        #expect(lines.dropFirst().first == "usage: promise-run [run] [OPTIONS] FILE [TARGET...]  run a workflow, or only what TARGETs need")
        #expect(lines.last == "Run 'promise-run --help' for more.")
        let none = try await Binary.run([])
        #expect(none.status == 2)
        #expect(none.stderr.hasPrefix("promise-run: no workflow file given\n"))
    }
}
