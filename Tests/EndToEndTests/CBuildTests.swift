import Foundation
import Testing

/// A C project as a make user writes one: gcc compiles each
/// `src/*.c` into `obj/STEM.o` with `-MMD`, the step reads the depfile, a
/// static library and a program are linked from the objects. Which steps
/// ran is read from the log each compile appends to, never from timing.
/// See docs/language.md, 'Incremental steps'.
@Suite("End to end: a C project with depfiles, per-file steps and the stat cache")
struct CBuildTests {
    static let workflow = """
        prepare: sh "mkdir -p obj bin"
        foreach f in glob("src/*.c") parallel {
          cc: sh "gcc -MMD -MF obj/{{f|stem}}.d -Iinclude -c -o obj/{{f|stem}}.o {{f}} && echo {{f|stem}} >> compiled.log" {
            sources "{{f}}"
            depfile "obj/{{f|stem}}.d"
            generates "obj/{{f|stem}}.o"
          }
        }
        lib: sh "ar rcs obj/libdemo.a obj/*.o && echo lib >> compiled.log" {
          sources "obj/*.o"
          generates "obj/libdemo.a"
        }

        """

    static let files = [
        "include/one.h": "#define ONE 1\n",
        "include/two.h": "#define TWO 2\n",
        "src/alpha.c": "#include \"one.h\"\nint alpha(void) { return ONE; }\n",
        "src/beta.c": "#include \"two.h\"\nint beta(void) { return TWO; }\n",
        "src/gamma.c": "#include \"one.h\"\n#include \"two.h\"\nint gamma_(void) { return ONE + TWO; }\n",
    ]

    private func project(_ workflow: String = workflow) throws -> Workspace {
        let space = try Workspace()
        try space.write("build.workflow", workflow)
        for (name, text) in Self.files { try space.write(name, text) }
        return space
    }

    /// Runs the build; the stems compiled by this run, sorted (the log is
    /// emptied first).
    private func build(_ space: Workspace, _ arguments: [String] = []) async throws -> (run: WorkflowRun, compiled: [String]) {
        try space.write("compiled.log", "")
        let outcome = try await Binary.run(
            ["--report", "json=report.json", "--color", "never"] + arguments + ["build.workflow"],
            in: space.folder)
        let run = WorkflowRun(outcome: outcome, reportText: space.read("report.json"))
        let compiled = (space.read("compiled.log") ?? "").split(separator: "\n").map(String.init).sorted()
        return (run, compiled)
    }

    @Test("a header edited runs exactly the compiles whose depfile lists it, then the library; nothing else")
    func headerEditRunsItsDependents() async throws {
        let space = try project()
        defer { space.remove() }
        let first = try await build(space)
        #expect(first.run.status == 0, "\(first.run.stdout)\(first.run.stderr)")
        #expect(first.compiled == ["alpha", "beta", "gamma", "lib"])
        #expect(try await build(space).compiled == [])
        try space.write("include/two.h", "#define TWO 22\n")
        #expect(try await build(space).compiled == ["beta", "gamma", "lib"])
        try space.write("include/one.h", "#define ONE 11\n")
        #expect(try await build(space).compiled == ["alpha", "gamma", "lib"])
        #expect(try await build(space).compiled == [])
    }

    @Test("per-file steps are stored by file, not position: adding a file compiles it alone, renaming one compiles the new name alone")
    func storedByItem() async throws {
        let space = try project()
        defer { space.remove() }
        #expect(try await build(space).compiled == ["alpha", "beta", "gamma", "lib"])
        // "aardvark" sorts first: every later file moves one position.
        try space.write("src/aardvark.c", "int aardvark(void) { return 0; }\n")
        #expect(try await build(space).compiled == ["aardvark", "lib"])
        try FileManager.default.moveItem(atPath: space.path("src/beta.c"), toPath: space.path("src/bravo.c"))
        #expect(try await build(space).compiled == ["bravo", "lib"])
        try FileManager.default.removeItem(atPath: space.path("src/aardvark.c"))
        // One fewer source: the library's sources changed (its glob still
        // matches aardvark.o, which nothing deletes), no compile runs.
        #expect(try await build(space).compiled.filter { $0 != "lib" } == [])
    }

    @Test("a depfile the command did not write is a warning, and the step runs again next time")
    func missingDepfile() async throws {
        let space = try project(
            """
            mk: sh "echo made > out.txt && echo mk >> compiled.log" {
              sources "in.txt"
              depfile "out.d"
              generates "out.txt"
            }

            """)
        defer { space.remove() }
        try space.write("in.txt", "in\n")
        let first = try await build(space)
        #expect(first.run.status == 0)
        let said = first.run.stdout + first.run.stderr
        #expect(said.contains("mk: its depfile 'out.d' cannot be read"), "\(said)")
        #expect(said.contains("it runs again next time"))
        #expect(try await build(space).compiled == ["mk"])
        try space.write("out.d", "out.txt: in.txt \\\n  extra\\ name.h\n")
        try space.write("extra name.h", "x\n")
        #expect(try await build(space).compiled == ["mk"])
        #expect(try await build(space).compiled == [])
        try space.write("extra name.h", "y\n")
        #expect(try await build(space).compiled == ["mk"])
    }

    @Test("'depfile' without 'sources' is an error before anything runs, at its line and column")
    func depfileNeedsSources() async throws {
        let space = try project(
            """
            mk: sh "true" {
              depfile "out.d"
            }

            """)
        defer { space.remove() }
        let outcome = try await Binary.run(["build.workflow"], in: space.folder)
        #expect(outcome.status == 2)
        #expect(outcome.stderr.contains("build.workflow:2:3"), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("give the step 'sources' too"))
    }

    @Test("a no-op run reads no source, header or object again: their size, times and inode are as the stat cache saw them")
    func noOpReadsNothing() async throws {
        let space = try project()
        defer { space.remove() }
        #expect(try await build(space).compiled == ["alpha", "beta", "gamma", "lib"])
        // Files written in the second they were hashed are hashed again
        // (git's racily-clean rule): as on a real project, where the no-op
        // comes seconds after the build, the files are made older here.
        let past = Date(timeIntervalSinceNow: -30)
        for name in Self.files.keys.map({ $0 }) + [
            "obj/alpha.o", "obj/beta.o", "obj/gamma.o", "obj/libdemo.a",
            "obj/alpha.d", "obj/beta.d", "obj/gamma.d",
        ] {
            try FileManager.default.setAttributes([.modificationDate: past], ofItemAtPath: space.path(name))
        }
        // The next run hashes them once more (their change time moved); the
        // one after reads none.
        #expect(try await build(space).compiled == [])
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/strace") else {
            print("strace is not installed (.ci/install-deps installs it): the no-op's reads are not traced here")
            return
        }
        let binary = try #require(Binary.url)
        let traced = try await Binary.runCommand(
            "/usr/bin/strace",
            [
                "-f", "-e", "trace=open,openat", "-o", space.path("trace.txt"),
                binary.path, "--color", "never", "build.workflow",
            ], in: space.folder)
        #expect(traced.status == 0, "\(traced.stderr)")
        let opened = (space.read("trace.txt") ?? "").split(separator: "\n").filter { line in
            [".c\"", ".h\"", ".o\"", ".a\""].contains { line.contains($0) }
        }
        #expect(opened.isEmpty, "\(opened.joined(separator: "\n"))")
        // A file rewritten with its size kept is read again, and runs its steps.
        try space.write("include/one.h", "#define ONE 3\n")
        #expect(try await build(space).compiled == ["alpha", "gamma", "lib"])
    }

    @Test(
        "through the shared cache (a folder and nginx WebDAV): a second checkout restores every object; one whose header differs compiles what includes it",
        arguments: ["folder", "webdav"])
    func sharedCacheHonoursDepfiles(_ kind: String) async throws {
        let root = try Binary.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let store: String
        if kind == "webdav" {
            guard let dav = try await TestServers.ifInstalled(TestServers.nginxWebDAV(), "the WebDAV store") else { return }
            store = "\(dav.url)/cache/\(UUID().uuidString)"
        } else {
            store = root.appendingPathComponent("store").path
            try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
        }
        var checkouts: [Workspace] = []
        for name in ["first", "second", "third"] {
            let space = Workspace(folder: root.appendingPathComponent(name))
            try space.write("build.workflow", Self.workflow)
            for (file, text) in Self.files { try space.write(file, text) }
            checkouts.append(space)
        }
        let first = try await build(checkouts[0], ["--cache", store])
        #expect(first.run.status == 0, "\(first.run.stdout)\(first.run.stderr)")
        #expect(first.compiled == ["alpha", "beta", "gamma", "lib"])
        let second = try await build(checkouts[1], ["--cache", store])
        #expect(second.compiled == [], "\(second.run.stdout)")
        #expect(second.run.statuses.filter { $0.hasPrefix("cc") }.allSatisfy { $0.hasSuffix("up-to-date") }, "\(second.run.statuses)")
        #expect(
            FileManager.default.contents(atPath: checkouts[1].path("obj/gamma.o"))
                == FileManager.default.contents(atPath: checkouts[0].path("obj/gamma.o")))
        // Another value for TWO: objects built against the old one must not come back.
        try checkouts[2].write("include/two.h", "#define TWO 20\n")
        let third = try await build(checkouts[2], ["--cache", store])
        #expect(third.compiled == ["beta", "gamma", "lib"], "\(third.run.stdout)")
        // And its own no-op afterwards: nothing runs.
        #expect(try await build(checkouts[2], ["--cache", store]).compiled == [])
    }

    @Test(
        "the cookbook's 'Coming from make' workflow builds a real project: clean and install only when named, a header edit compiles its dependents")
    func cookbookRecipe() async throws {
        let block = try #require(
            try DocsTests.blocks(in: "docs/cookbook.md").first {
                $0.tag == "workflow" && $0.text.contains("depfile") && $0.text.contains("install:")
            })
        let space = try Workspace()
        defer { space.remove() }
        try space.write("build.workflow", block.text)
        try space.write("include/util.h", "int twice(int);\n")
        try space.write("src/util.c", "#include \"util.h\"\nint twice(int x) { return 2 * x; }\n")
        try space.write(
            "src/main.c",
            """
            #include <string.h>
            #include "util.h"
            int main(int argc, char **argv) { return argc > 1 && strcmp(argv[1], "--self-test") == 0 ? twice(2) != 4 : 0; }

            """)
        func run(_ arguments: [String] = [], environment: [String: String] = [:]) async throws -> WorkflowRun {
            let outcome = try await Binary.run(
                ["--report", "json=report.json", "--color", "never", "build.workflow"] + arguments,
                in: space.folder, environment: environment)
            return WorkflowRun(outcome: outcome, reportText: space.read("report.json"))
        }
        let first = try await run()
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        #expect(first.step("clean")?["status"] as? String == "skipped")
        #expect(first.step("install")?["status"] as? String == "skipped")
        #expect(FileManager.default.isExecutableFile(atPath: space.path("bin/app")))
        let noop = try await run()
        #expect(
            noop.statuses.filter { $0.hasPrefix("cc") || $0.hasPrefix("link") }.allSatisfy { $0.hasSuffix("up-to-date") },
            "\(noop.statuses)")
        // Checks are not runs: a no-op has no statistics table of them.
        #expect(!noop.stdout.contains("runs") && !noop.stdout.contains("p50"), "\(noop.stdout)")
        try space.write("include/util.h", "int twice(int x);\n")
        let edited = try await run()
        #expect(edited.statuses.filter { $0.hasPrefix("cc") }.filter { !$0.hasSuffix("up-to-date") }.count == 2, "\(edited.statuses)")
        let prefix = space.path("prefix")
        #expect(try await run(["install"], environment: ["PREFIX": prefix]).status == 0)
        #expect(FileManager.default.isExecutableFile(atPath: prefix + "/bin/app"))
        #expect(try await run(["clean"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: space.path("obj")) && !FileManager.default.fileExists(atPath: space.path("bin")))
    }
}
