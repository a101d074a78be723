import Foundation
import Testing

/// The no-op record (docs/language.md, "Incremental steps"): a run whose
/// every step is up to date leaves a record of every path it looked at;
/// the next identical invocation `stat`s them and, when nothing changed,
/// shows the same no-op without reading the workflow. These tests take
/// the user's side: the shown run says what the full one says, and every
/// change a build depends on (a source, a new file a glob matches, an
/// output, a header its depfile listed, the workflow, an include, the
/// environment, the store) makes the next run do the work again, read
/// from the steps' own side effects.
@Suite("End to end: the no-op record")
struct NoOpRecordTests {
    static let workflow = """
        workflow "build"
        include "flags.workflow"
        foreach f in glob("src/*.c") parallel {
          cc: sh "mkdir -p obj && cat {{f}} include/h.h > obj/{{f|stem}}.o && echo cc {{f|stem}} >> runs.log && printf 'obj/{{f|stem}}.o: {{f}} include/h.h\\\\n' > obj/{{f|stem}}.d" {
            sources "{{f}}"
            generates "obj/{{f|stem}}.o"
            depfile "obj/{{f|stem}}.d"
          }
        }
        link: sh "cat obj/*.o > app && echo link {{flags}} {{env.FLAVOR ?? "plain"}} >> runs.log" {
          sources "obj/*.o"
          generates "app"
        }
        """

    /// A project of three sources and a header, built once.
    private func project() async throws -> Workspace {
        let space = try Workspace()
        try space.write("build.workflow", Self.workflow)
        try space.write("flags.workflow", "var flags = \"-O1\"\n")
        try space.write("include/h.h", "/* h */\n")
        for name in ["a", "b", "c"] { try space.write("src/\(name).c", "int \(name);\n") }
        let built = try await run(space)
        #expect(built.status == 0, "\(built.stdout)\(built.stderr)")
        #expect(runs(space) == ["cc a", "cc b", "cc c", "link -O1 plain"].sorted())
        return space
    }

    private func run(_ space: Workspace, _ arguments: [String] = [], environment: [String: String] = [:]) async throws
        -> Binary.Outcome
    {
        try await Binary.run(["--color", "never"] + arguments + ["build.workflow"], in: space.folder, environment: environment)
    }

    /// What the steps did, sorted (parallel steps append in any order).
    private func runs(_ space: Workspace) -> [String] {
        (space.read("runs.log") ?? "").split(separator: "\n").map(String.init).sorted()
    }

    /// The records in the workspace's store.
    private func records(_ space: Workspace) -> [String] {
        let folder = space.path(".promise-run/noop")
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    /// A record is written only for paths last changed at least a second
    /// before the run (git's racily-clean rule): what a build minutes
    /// before a no-op sees.
    private func settle() async throws {
        try await Task.sleep(for: .milliseconds(1_100))
    }

    /// Settles, runs the no-op that writes the record, and checks it did.
    private func recordNoOp(_ space: Workspace, _ arguments: [String] = [], environment: [String: String] = [:]) async throws {
        try await settle()
        let before = runs(space)
        let noOp = try await run(space, arguments, environment: environment)
        #expect(noOp.status == 0, "\(noOp.stdout)\(noOp.stderr)")
        #expect(runs(space) == before, "a no-op runs nothing")
        #expect(!records(space).isEmpty, "the no-op left its record")
    }

    @Test("the run shown from the record says what the full no-op says, with -q too, and runs nothing")
    func sameOutput() async throws {
        let space = try await project()
        defer { space.remove() }
        try await settle()
        let full = try await run(space)
        #expect(full.status == 0)
        #expect(records(space).count == 1, "the full no-op left a record")
        let recordText = try #require(space.read(".promise-run/noop/" + records(space)[0]))
        #expect(recordText.hasPrefix("promise-run-noop/1\n"))
        #expect(recordText.contains("src/b.c"), "the record names what the run looked at")
        let shown = try await run(space)
        #expect(shown.status == 0)
        #expect(runs(space).count == 4, "nothing ran")
        // The same lines, the times aside (a step shown from the record
        // took none).
        func withoutTime(_ text: String) -> [String] {
            text.split(separator: "\n").map { line in
                line.hasPrefix("✓ build succeeded in ")
                    ? "✓ build succeeded"
                    : line.replacingOccurrences(of: #"\s+[0-9]+ms$"#, with: " Nms", options: .regularExpression)
            }
        }
        #expect(shown.stdout.contains("cc[0]  sh    up-to-date         1       0ms"), "no time taken: \(shown.stdout)")
        #expect(withoutTime(shown.stdout).sorted() == withoutTime(full.stdout).sorted(), "\(shown.stdout)\n---\n\(full.stdout)")
        #expect(shown.stdout.contains("≡ cc[1] up-to-date") && shown.stdout.contains("≡ link up-to-date"))
        #expect(shown.stderr.isEmpty, "\(shown.stderr)")
        // -q: its own command line, its own record; the headline alone.
        try await recordNoOp(space, ["-q"])
        #expect(records(space).count == 2)
        let quiet = try await run(space, ["-q"])
        #expect(quiet.status == 0)
        #expect(quiet.stdout.hasPrefix("✓ build succeeded in ") && quiet.stdout.split(separator: "\n").count == 1, "\(quiet.stdout)")
        // The code lens's last results still say each label's last run.
        let lens = try #require(space.read(".promise-run/last-results.json"))
        #expect(lens.contains("\"cc\"") && lens.contains("\"runs\": 3") && lens.contains("up-to-date"), "\(lens)")
    }

    @Test("a source edited to the same size with its old modification time runs its compile and the link")
    func sourceEdited() async throws {
        let space = try await project()
        defer { space.remove() }
        try await recordNoOp(space)
        let old = try FileManager.default.attributesOfItem(atPath: space.path("src/b.c"))[.modificationDate] as? Date
        try space.write("src/b.c", "int B;\n")
        try FileManager.default.setAttributes([.modificationDate: try #require(old)], ofItemAtPath: space.path("src/b.c"))
        #expect(try await run(space).status == 0)
        #expect(runs(space).filter { $0 == "cc b" }.count == 2, "\(runs(space))")
        #expect(runs(space).filter { $0.hasPrefix("link") }.count == 2)
        #expect(runs(space).filter { $0 == "cc a" }.count == 1)
    }

    @Test("a new file the glob matches runs its compile; a deleted output, its step")
    func newFileAndDeletedOutput() async throws {
        let space = try await project()
        defer { space.remove() }
        try await recordNoOp(space)
        try space.write("src/d.c", "int d;\n")
        #expect(try await run(space).status == 0)
        #expect(runs(space).contains("cc d"), "\(runs(space))")

        try await recordNoOp(space)
        try FileManager.default.removeItem(atPath: space.path("app"))
        #expect(try await run(space).status == 0)
        #expect(FileManager.default.fileExists(atPath: space.path("app")), "the deleted output is made again")
    }

    @Test("a header only the depfiles list, an edited include and an edited workflow each run the steps they feed")
    func headerIncludeWorkflow() async throws {
        let space = try await project()
        defer { space.remove() }
        try await recordNoOp(space)
        try space.write("include/h.h", "/* h, edited */\n")
        #expect(try await run(space).status == 0)
        #expect(runs(space).filter { $0 == "cc a" }.count == 2, "the header the depfile named: \(runs(space))")

        try await recordNoOp(space)
        try space.write("flags.workflow", "var flags = \"-O2\"\n")
        #expect(try await run(space).status == 0)
        #expect(runs(space).contains("link -O2 plain"), "the include's new value: \(runs(space))")

        try await recordNoOp(space)
        try space.write("build.workflow", Self.workflow.replacingOccurrences(of: "echo link", with: "echo relink"))
        #expect(try await run(space).status == 0)
        #expect(runs(space).contains("relink -O2 plain"), "the workflow's new command: \(runs(space))")
    }

    @Test("another value of an environment variable, or a deleted store entry, runs the step again")
    func environmentAndStore() async throws {
        let space = try await project()
        defer { space.remove() }
        try await recordNoOp(space, environment: ["FLAVOR": "plain"])
        #expect(try await run(space, environment: ["FLAVOR": "fancy"]).status == 0)
        #expect(runs(space).contains("link -O1 fancy"), "\(runs(space))")

        try await recordNoOp(space, environment: ["FLAVOR": "fancy"])
        let entries = try FileManager.default.contentsOfDirectory(atPath: space.path(".promise-run/steps"))
        let link = try #require(entries.first { $0.hasPrefix("link") })
        try FileManager.default.removeItem(atPath: space.path(".promise-run/steps/" + link))
        #expect(try await run(space, environment: ["FLAVOR": "fancy"]).status == 0)
        #expect(runs(space).filter { $0 == "link -O1 fancy" }.count == 2, "\(runs(space))")
    }

    @Test("a run that fails leaves no record behind, and the next run after the fix does the work")
    func failureForgets() async throws {
        let space = try await project()
        defer { space.remove() }
        try await recordNoOp(space)
        // The link fails now: its command reads a file that is not there.
        try space.write("build.workflow", Self.workflow.replacingOccurrences(of: "cat obj/*.o > app", with: "cat obj/*.o missing > app"))
        let failed = try await run(space)
        #expect(failed.status == 1)
        #expect(records(space).isEmpty, "no record stands for a failed run: \(records(space))")
        try space.write("build.workflow", Self.workflow)
        #expect(try await run(space).status == 0)
        #expect(runs(space).filter { $0.hasPrefix("link") }.count == 2, "the link runs again after the fix: \(runs(space))")
    }

    @Test("a step whose values are new each run (newUuid) leaves no record; nor do --force, -v and reports")
    func noRecordFor() async throws {
        let space = try await project()
        defer { space.remove() }
        try await settle()
        for arguments in [["--force"], ["-v"], ["--report", "json=r.json"], ["--dry-run"]] {
            _ = try await run(space, arguments)
            #expect(records(space).isEmpty, "\(arguments) leaves no record")
        }
        try space.write("build.workflow", Self.workflow + "\nif \"{{newUuid}}\" != \"\" {\n  stamp: sh \"true\" {\n    sources \"app\"\n  }\n}\n")
        _ = try await run(space)
        try await settle()
        _ = try await run(space)
        #expect(records(space).isEmpty, "a value new each run: \(records(space))")
    }
}
