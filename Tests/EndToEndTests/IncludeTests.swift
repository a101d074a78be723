import Foundation
import Testing

/// `include "PATH"`, end to end.
/// See docs/language.md, 'Targets, desc, allow-failure, dotenv'.
@Suite("End to end: include")
struct IncludeTests {
    @Test("nested includes run as if written there; labels share one namespace; check, list, graph and reports see the steps")
    func nested() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write(
            "lib/build.workflow",
            """
            # shared build steps
            build: sh "echo built for {{who}}"
            include "test.workflow"
            """)
        try space.write("lib/test.workflow", "test: sh \"echo tested\"\n")
        let run = try await space.run(
            """
            workflow "main"
            var who = "ci"
            include "lib/build.workflow"
            deploy: log "=deploy after {{build.stdout}} and {{test.stdout}}"
            """)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.statuses == ["build succeeded", "test succeeded", "deploy succeeded"])
        #expect(run.logLines(prefix: "=") == ["=deploy after built for ci and tested"])
        let list = try await Binary.run(["list", "test.workflow"], in: space.folder)
        #expect(list.stdout.split(separator: "\n").map { String($0.split(separator: " ").first ?? "") } == ["build", "test", "deploy"])
        let graph = try await Binary.run(["graph", "test.workflow"], in: space.folder)
        #expect(graph.stdout.contains("build: sh") && graph.stdout.contains("test: sh"))
    }

    @Test("an error inside an included file points into it, with a note at the include; an unlabelled step's id names its file")
    func errorsPointIntoTheIncludedFile() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("lib/steps.workflow", "ok: sh \"true\"\nbad: sh \"true\" {\n  timout 5s\n}\n")
        try space.write("main.workflow", "include \"lib/steps.workflow\"\n")
        let check = try await Binary.run(["check", "main.workflow"], in: space.folder)
        #expect(check.status == 2)
        #expect(check.stderr.contains("lib/steps.workflow:3:3: error: unknown attribute 'timout' for sh; did you mean 'timeout'?"))
        #expect(check.stderr.contains("note: in the file included at main.workflow:1"))
        let json = try await Binary.run(["check", "--format", "json", "main.workflow"], in: space.folder)
        let items = try #require(json.jsonObjects)
        #expect(items.first?["file"] as? String == "lib/steps.workflow")
        #expect(items.first?["line"] as? Int == 3)

        try space.write("lib/steps.workflow", "sh \"exit 3\"\n")
        let failed = try await space.run("include \"lib/steps.workflow\"\n")
        #expect(failed.status == 1)
        #expect(failed.statuses == ["sh@lib/steps.workflow:1:1 failed"])
    }

    @Test("cycles, missing files, interpolated paths, and workflow/timeout in an included file are errors; nothing runs")
    func mistakes() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("a.workflow", "include \"b.workflow\"\n")
        try space.write("b.workflow", "mark: sh \"touch ran\"\ninclude \"a.workflow\"\n")
        let cycle = try await Binary.run(["a.workflow"], in: space.folder)
        #expect(cycle.status == 2)
        #expect(cycle.stderr.contains("b.workflow:2:9: error: include cycle: a.workflow → b.workflow → a.workflow"))
        #expect(space.read("ran") == nil)

        try space.write("c.workflow", "include \"missing.workflow\"\n")
        let missing = try await Binary.run(["check", "c.workflow"], in: space.folder)
        #expect(missing.stderr.contains("c.workflow:1:9: error: cannot include 'missing.workflow': No such file or directory"))

        try space.write("d.workflow", "include \"{{x}}.workflow\"\n")
        let interpolated = try await Binary.run(["check", "d.workflow"], in: space.folder)
        #expect(interpolated.stderr.contains("an include path is read before anything runs: it cannot use '{{ }}'"))

        try space.write("named.workflow", "workflow \"inner\"\ntimeout 5m\nx: sh \"true\"\n")
        try space.write("e.workflow", "include \"named.workflow\"\n")
        let named = try await Binary.run(["check", "e.workflow"], in: space.folder)
        #expect(named.status == 2)
        #expect(named.stderr.contains("named.workflow:1:1: error: an included file cannot name the workflow"))
        #expect(named.stderr.contains("named.workflow:2:1: error: an included file cannot set the workflow's timeout"))

        try space.write("f.workflow", "s: sequence {\n  include \"named.workflow\"\n}\n")
        let nested = try await Binary.run(["check", "f.workflow"], in: space.folder)
        #expect(nested.stderr.contains("f.workflow:2:3: error: 'include' brings a file in at the top level"))
    }
}
