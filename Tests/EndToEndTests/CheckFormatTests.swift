import Foundation
import Testing

/// `check --format json`, GitHub annotations for `check`, and the
/// newcomer traps that now get a warning or a "did you mean".
@Suite("End to end: check as data, and newcomer traps")
struct CheckFormatTests {
    @Test("check --format json: one array of diagnostics with locations, severities and notes; exit 2 on errors")
    func json() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("bad.workflow", "a: sh \"true\" {\n  retrys 2\n}\nhttp PSOT \"http://127.0.0.1:1/\"\n")
        try space.write("good.workflow", "a: sh \"true\"\n")
        let outcome = try await Binary.run(["check", "--format", "json", "bad.workflow", "good.workflow"], in: space.folder)
        #expect(outcome.status == 2)
        #expect(outcome.stderr.isEmpty, "data on stdout only: \(outcome.stderr)")
        let items = try #require(outcome.jsonObjects)
        #expect(items.count == 2)
        let error = items[0]
        #expect(error["file"] as? String == "bad.workflow")
        #expect(error["line"] as? Int == 2 && error["column"] as? Int == 3)
        #expect(error["endLine"] as? Int == 2 && error["endColumn"] as? Int == 9)
        #expect(error["severity"] as? String == "error")
        #expect(error["message"] as? String == "unknown attribute 'retrys' for sh; did you mean 'retry'?")
        let warning = items[1]
        #expect(warning["severity"] as? String == "warning")
        #expect((warning["notes"] as? [[String: Any]])?.first?["message"] is String)

        let fine = try await Binary.run(["check", "--format", "json", "good.workflow"], in: space.folder)
        #expect(fine.status == 0)
        #expect(fine.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
    }

    @Test("check under GitHub Actions prints ::error annotations at the diagnostic's place")
    func annotations() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("bad.workflow", "a: sh \"true\" {\n  retrys 2\n}\n")
        let outcome = try await Binary.run(["check", "bad.workflow"], in: space.folder, environment: ["GITHUB_ACTIONS": "true"])
        #expect(outcome.status == 2)
        #expect(
            outcome.stdout.contains(
                "::error file=bad.workflow,line=2,col=3,endLine=2,endColumn=9::unknown attribute 'retrys' for sh; did you mean 'retry'?"))
    }

    @Test("newcomer traps: {{name}} in a raw string, an indented timeout under a step, 'retries'")
    func traps() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write(
            "trap.workflow",
            """
            var name = "x"
            build: sh 'echo {{name}}'
              timeout 10m
            go: sh 'docker inspect -f "{{.Id}}" x'
            """)
        let outcome = try await Binary.run(["check", "trap.workflow"], in: space.folder)
        #expect(outcome.status == 0, "warnings only")
        #expect(outcome.stderr.contains("trap.workflow:2:11: warning: '{{name}}' in a '...' string is not filled in"))
        #expect(outcome.stderr.contains("trap.workflow:3:3: warning: this 'timeout' applies to the whole workflow, not to the step above it"))
        #expect(!outcome.stderr.contains("{{.Id}}"), "a Go template's braces are left alone")
        try space.write("retries.workflow", "a: sh \"true\" {\n  retries 2\n}\nb: parallel {\n  retries 2\n  c: sh \"true\"\n}\n")
        let retries = try await Binary.run(["check", "retries.workflow"], in: space.folder)
        #expect(retries.status == 2)
        #expect(retries.stderr.contains("retries.workflow:2:3: error: unknown attribute 'retries' for sh; did you mean 'retry'?"))
        #expect(retries.stderr.contains("retries.workflow:5:3: error: unknown statement 'retries'; did you mean 'retry'?"))
    }
}
