import Foundation
import Testing

/// `sources` / `generates`, end to end against real files.
/// See docs/language.md, 'Incremental steps'.
@Suite("End to end: incremental steps")
struct IncrementalTests {
    static let workflow = """
        workflow "build"
        var flags = "-O1"
        compile: sh "mkdir -p out && cat src/*.c > out/app && echo built {{flags}} v7 && echo run >> runs.log" {
          sources "src/**/*.c"
          generates "out/app"
          env MODE = "release"
          capture version = stdout matches 'v([0-9]+)'
        }
        log "={{compile.stdout}} version {{compile.version}}"
        """

    private func run(_ space: Workspace, _ arguments: [String] = []) async throws -> WorkflowRun {
        let outcome = try await Binary.run(["--report", "json=report.json", "--color", "never"] + arguments + ["build.workflow"], in: space.folder)
        return WorkflowRun(outcome: outcome, reportText: space.read("report.json"))
    }

    private func runs(_ space: Workspace) -> Int {
        (space.read("runs.log") ?? "").split(separator: "\n").count
    }

    @Test("an untouched step is up-to-date with its stored stdout and captures; a changed source, a deleted output or --force runs it")
    func upToDate() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("build.workflow", Self.workflow)
        try space.write("src/main.c", "int main(void) { return 0; }\n")
        try space.write("src/lib/util.c", "int util(void) { return 1; }\n")

        let first = try await run(space)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        #expect(first.step("compile")?["status"] as? String == "succeeded")
        #expect(runs(space) == 1)

        let second = try await run(space)
        #expect(second.step("compile")?["status"] as? String == "up-to-date")
        #expect(second.stdout.contains("≡ compile up-to-date"))
        #expect(second.logLines(prefix: "=") == ["=built -O1 v7 version 7"], "fields and captures from the stored run")
        #expect(runs(space) == 1, "not run again")

        try space.write("src/lib/util.c", "int util(void) { return 2; }\n")
        let changed = try await run(space)
        #expect(changed.step("compile")?["status"] as? String == "succeeded")
        #expect(runs(space) == 2)

        try FileManager.default.removeItem(atPath: space.path("out/app"))
        let missing = try await run(space)
        #expect(missing.step("compile")?["status"] as? String == "succeeded", "a generated file is missing")
        #expect(runs(space) == 3)

        let forced = try await run(space, ["--force"])
        #expect(forced.step("compile")?["status"] as? String == "succeeded")
        #expect(runs(space) == 4)
        #expect(try await run(space).step("compile")?["status"] as? String == "up-to-date")
    }

    @Test("a changed command, environment or stdin runs the step again; a new file matching sources too")
    func changedInputs() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("src/main.c", "int main(void) { return 0; }\n")
        try space.write("build.workflow", Self.workflow)
        _ = try await run(space)
        #expect(try await run(space).step("compile")?["status"] as? String == "up-to-date")
        let variants = [
            Self.workflow.replacing("-O1", with: "-O2"),
            Self.workflow.replacing("MODE = \"release\"", with: "MODE = \"debug\""),
            Self.workflow.replacing("env MODE", with: "stdin \"input\"\n  env MODE"),
        ]
        var expected = 1
        for variant in variants {
            try space.write("build.workflow", variant)
            let changed = try await run(space)
            expected += 1
            #expect(changed.step("compile")?["status"] as? String == "succeeded", "\(variant)")
            #expect(runs(space) == expected)
            #expect(try await run(space).step("compile")?["status"] as? String == "up-to-date")
        }
        try space.write("src/extra.c", "int extra;\n")
        #expect(try await run(space).step("compile")?["status"] as? String == "succeeded", "a new source file")
    }

    @Test("a source folder stands for every file below it: an edit there runs the step")
    func folderSource() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("src/main.c", "int main;\n")
        try space.write("src/lib/util.c", "int util;\n")
        try space.write(
            "build.workflow",
            """
            compile: sh "echo run >> runs.log" {
              sources "src"
            }
            """)
        #expect(try await run(space).step("compile")?["status"] as? String == "succeeded")
        #expect(try await run(space).step("compile")?["status"] as? String == "up-to-date")
        try space.write("src/lib/util.c", "int util2;\n")
        #expect(try await run(space).step("compile")?["status"] as? String == "succeeded", "a file below the folder changed")
        #expect(try await run(space).step("compile")?["status"] as? String == "up-to-date")
        try space.write("src/new/more.c", "int more;\n")
        #expect(try await run(space).step("compile")?["status"] as? String == "succeeded", "a new file below the folder")
    }

    @Test("a foreach over a glob that matches no file says so (a typo?), and succeeds with nothing to do")
    func unmatchedGlob() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("src/main.c", "int main;\n")
        try space.write(
            "build.workflow",
            """
            var dir = "scr"
            compile: foreach f in glob("{{dir}}/*.c") parallel {
              cc: sh "echo {{f}} >> runs.log"
            }
            """)
        let typo = try await run(space)
        #expect(typo.status == 0, "\(typo.stdout)")
        #expect(typo.stdout.contains("warning: 'compile': glob(\"scr/*.c\") matches no file, so it has no iteration (a typo?)"), "\(typo.stdout)")
        let right = try await run(space, ["--var", "dir=src"])
        #expect(right.status == 0, "\(right.stdout)")
        #expect(!right.stdout.contains("matches no file"), "\(right.stdout)")
        #expect(runs(space) == 1)
    }

    @Test("a sources pattern that matches nothing is a warning from check and from the run, naming the pattern")
    func unmatchedSource() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("src/main.c", "int main;\n")
        try space.write(
            "build.workflow",
            """
            compile: sh "echo run >> runs.log" {
              sources "scr/**/*.c" "src/*.c"
            }
            gen: sh "mkdir -p gen && echo x > gen/a.c" {
              generates "gen/a.c"
            }
            objects: sh "true" {
              generates "*.o"
            }
            use: sh "cat gen/a.c" {
              sources "gen/*.c"
            }
            """)
        let check = try await Binary.run(["check", "--color", "never", "build.workflow"], in: space.folder)
        #expect(check.status == 0, "a warning is not an error: \(check.stderr)")
        #expect(check.stderr.contains("build.workflow:2:11: warning: sources 'scr/**/*.c' matches no file"), "\(check.stderr)")
        #expect(!check.stderr.contains("gen/*.c"), "a step's generates may make these: \(check.stderr)")
        let json = try await Binary.run(["check", "--format", "json", "build.workflow"], in: space.folder)
        let items = try #require(json.jsonObjects)
        #expect(
            items.contains { $0["severity"] as? String == "warning" && $0["line"] as? Int == 2 && $0["column"] as? Int == 11 },
            "\(json.stdout)")

        let first = try await run(space)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        #expect(first.stdout.contains("warning: compile: sources \"scr/**/*.c\" matches no file"), "\(first.stdout)")
        #expect(!first.stdout.contains("gen/*.c\" matches"), "\(first.stdout)")
        try space.write("src/main.c", "int main2;\n")
        #expect(try await run(space).step("compile")?["status"] as? String == "succeeded", "the pattern that matches still counts")
    }

    @Test("inherited variables leave steps up to date; env, --env-file and env-inputs variables do not")
    func inheritedEnvironment() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("src/main.c", "int main;\n")
        try space.write("build.env", "LEVEL=1\n")
        try space.write(
            "build.workflow",
            """
            plain: sh "echo plain >> runs.log" {
              sources "src/*.c"
            }
            reads: sh "echo $CC >> runs.log" {
              sources "src/*.c"
              env-inputs CC
            }
            """)
        func statuses(_ environment: [String: String], _ arguments: [String] = []) async throws -> [String] {
            let outcome = try await Binary.run(
                ["--report", "json=report.json", "--color", "never"] + arguments + ["build.workflow"],
                in: space.folder, environment: environment)
            return WorkflowRun(outcome: outcome, reportText: space.read("report.json")).statuses
        }
        #expect(try await statuses([:]) == ["plain succeeded", "reads succeeded"])
        #expect(try await statuses([:]) == ["plain up-to-date", "reads up-to-date"])
        #expect(
            try await statuses(["FOO": "1", "CI": "true", "RUNNER_TEMP": "/tmp/x"]) == ["plain up-to-date", "reads up-to-date"],
            "a CI runner's own variables change nothing")
        #expect(try await statuses(["CC": "clang"]) == ["plain up-to-date", "reads succeeded"], "env-inputs CC")
        #expect(try await statuses(["CC": "clang"]) == ["plain up-to-date", "reads up-to-date"])
        #expect(try await statuses(["CC": ""]) == ["plain up-to-date", "reads succeeded"], "set but empty differs from clang")
        #expect(
            try await statuses(["CC": "clang"], ["--env-file", "build.env"]) == ["plain succeeded", "reads succeeded"],
            "--env-file gives the steps LEVEL")
        #expect(try await statuses(["CC": "clang"], ["--env-file", "build.env"]) == ["plain up-to-date", "reads up-to-date"])
        try space.write("build.env", "LEVEL=2\n")
        #expect(try await statuses(["CC": "clang"], ["--env-file", "build.env"]) == ["plain succeeded", "reads succeeded"])
    }

    @Test("a corrupt or foreign store entry means run it; a failed run stores nothing")
    func corruptStore() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("src/main.c", "int main(void) { return 0; }\n")
        try space.write("build.workflow", Self.workflow)
        _ = try await run(space)
        let folder = space.path(".promise-run/steps")
        let entries = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(entries.count == 1)
        let entry = folder + "/" + entries[0]
        try Data("{ not json".utf8).write(to: URL(fileURLWithPath: entry))
        #expect(try await run(space).step("compile")?["status"] as? String == "succeeded")
        #expect(try await run(space).step("compile")?["status"] as? String == "up-to-date", "the entry was written again")
        try Data(#"{"format": "something-else/9", "step": "compile", "fingerprint": "x"}"#.utf8).write(to: URL(fileURLWithPath: entry))
        #expect(try await run(space).step("compile")?["status"] as? String == "succeeded")

        try space.write("build.workflow", Self.workflow.replacing("echo run >> runs.log\"", with: "echo run >> runs.log; exit 1\""))
        _ = try await run(space)
        #expect(try await run(space).step("compile")?["status"] as? String == "failed", "a failure is never up to date")
    }

    @Test("two overlapping runs of the same workflow leave a whole store entry")
    func overlappingRuns() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("src/main.c", "int main(void) { return 0; }\n")
        try space.write("build.workflow", Self.workflow)
        let binary = try #require(Binary.url).path
        async let one = Binary.runCommandOffPool("/bin/sh", ["-c", "cd '\(space.folder.path)' && '\(binary)' -q build.workflow"])
        async let two = Binary.runCommandOffPool("/bin/sh", ["-c", "cd '\(space.folder.path)' && '\(binary)' -q build.workflow"])
        let (a, b) = try await (one, two)
        #expect(a.status == 0 && b.status == 0)
        let folder = space.path(".promise-run/steps")
        let entries = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(entries.count == 1, "no temporary file left: \(entries)")
        #expect(try await run(space).step("compile")?["status"] as? String == "up-to-date")
    }

    @Test("--dry-run says which steps would be skipped and why the others would run")
    func dryRun() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("src/main.c", "int main(void) { return 0; }\n")
        try space.write("build.workflow", Self.workflow)
        func verdict() async throws -> String {
            let outcome = try await Binary.run(["--dry-run", "build.workflow"], in: space.folder)
            return outcome.stdout.split(separator: "\n").last.map { String($0).trimmingCharacters(in: .whitespaces) } ?? ""
        }
        #expect(try await verdict() == "compile  would run: no successful run is stored")
        _ = try await run(space)
        #expect(try await verdict() == "compile  up-to-date, unless its command, environment or stdin changed")
        try space.write("src/main.c", "int main(void) { return 1; }\n")
        #expect(try await verdict() == "compile  would run: src/main.c changed")
        _ = try await run(space)
        try space.write("src/more.c", "int more;\n")
        #expect(try await verdict() == "compile  would run: src/more.c is new")
        _ = try await run(space)
        try FileManager.default.removeItem(atPath: space.path("out/app"))
        #expect(try await verdict() == "compile  would run: nothing matches generates 'out/app'")
        #expect(runs(space) == 3, "a dry run runs nothing")
    }
}
