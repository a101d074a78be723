import Foundation
import Testing

/// `--watch`, driven by a script that edits files and reads the
/// output as it comes (Tests/Fixtures/watch-driver.py).
/// See docs/language.md, 'Incremental steps'.
@Suite("End to end: --watch")
struct WatchTests {
    private struct Report: Decodable {
        var failed: String?
        var code: Int?
        var output: [String]
        var latencies: [Double]
    }

    /// A project watched: `src/main.c` and `build.workflow` in a workspace
    /// of its own (the caller removes it).
    private func project(_ workflow: String) throws -> Workspace {
        let space = try Workspace()
        try space.write("src/main.c", "int main;\n")
        try space.write("build.workflow", workflow)
        return space
    }

    private func drive(_ space: Workspace, _ script: String) async throws -> Report {
        let binary = try #require(Binary.url).path
        let driver = Binary.packageRoot.appendingPathComponent("Tests/Fixtures/watch-driver.py").path
        let outcome = try await Binary.runCommandOffPool("/usr/bin/python3", [driver, binary, space.folder.path, "build.workflow", script])
        return try JSONDecoder().decode(Report.self, from: Data(outcome.stdout.utf8))
    }

    @Test("a saved source runs the workflow again; an unrelated file does not; Ctrl-C ends it with 130")
    func rerunsOnChange() async throws {
        let space = try project(
            """
            compile: sh "cat src/main.c > app && echo =compiled" {
              sources "src/**/*.c"
              generates "app"
            }
            """)
        defer { space.remove() }
        let report = try await drive(
            space,
            #"""
            [["wait", "watching"], ["edit", "notes.txt", "x"], ["sleep", 0.5], ["edit", "src/main.c", "int x;\n"],
             ["wait", "running again"], ["wait", "watching"], ["interrupt"]]
            """#)
        #expect(report.failed == nil, "\(report.failed ?? "") \(report.output)")
        #expect(report.code == 130)
        #expect(report.output.filter { $0.contains("=compiled") }.count == 2, "\(report.output)")
        #expect(report.output.contains("⟳ src/main.c changed: running again"))
        #expect(!report.output.contains { $0.contains("notes.txt") }, "a file no source matches starts nothing")
        print("watch: from the save to the next run: \(report.latencies) ms")
    }

    @Test("a multi-stage build whose first stage writes what the second reads runs once per save, never restarting itself")
    func generatedFilesStartNothing() async throws {
        let space = try project(
            """
            compile: sh "mkdir -p obj && sleep 0.3 && cat src/main.c > obj/main.o && sleep 0.3 && echo =compiled" {
              sources "src/*.c"
              generates "obj/main.o"
            }
            archive: sh "cat obj/main.o > lib.a && echo =archived" {
              sources "obj/main.o"
              generates "lib.a"
            }
            """)
        defer { space.remove() }
        let report = try await drive(
            space,
            #"""
            [["wait", "=archived"], ["wait", "watching"], ["sleep", 1.5], ["edit", "src/main.c", "int x;\n"],
             ["wait", "running again"], ["wait", "=archived"], ["wait", "watching"], ["sleep", 1.5], ["interrupt"]]
            """#)
        #expect(report.failed == nil, "\(report.failed ?? "") \(report.output)")
        #expect(report.code == 130)
        #expect(!report.output.contains { $0.contains("stopping this run") }, "\(report.output)")
        #expect(report.output.filter { $0.contains("=compiled") }.count == 2, "\(report.output)")
        #expect(report.output.filter { $0.contains("running again") }.count == 1, "\(report.output)")
    }

    @Test("per-file steps with interpolated sources and depfiles: an edited header runs its compiles, the objects they write start nothing")
    func perFileStepsWatchedThroughTheStore() async throws {
        let space = try project(
            """
            foreach f in glob("src/*.c") {
              cc: sh "mkdir -p obj && gcc -MMD -MF obj/{{f|stem}}.d -Iinclude -c -o obj/{{f|stem}}.o {{f}} && echo ={{f|stem}}" {
                sources "{{f}}"
                depfile "obj/{{f|stem}}.d"
                generates "obj/{{f|stem}}.o"
              }
            }
            lib: sh "ar rcs lib.a obj/*.o && echo =archived" {
              sources "obj/*.o"
              generates "lib.a"
            }
            """)
        defer { space.remove() }
        try space.write("include/one.h", "#define ONE 1\n")
        try space.write("src/main.c", "#include \"one.h\"\nint main(void) { return ONE; }\n")
        try space.write("src/other.c", "int other(void) { return 0; }\n")
        let report = try await drive(
            space,
            #"""
            [["wait", "=archived"], ["wait", "watching"], ["sleep", 1.2], ["write", "include/one.h", "#define ONE 2\n"],
             ["wait", "running again"], ["wait", "=archived"], ["wait", "watching"], ["sleep", 1.2],
             ["write", "src/other.c", "int other(void) { return 1; }\n"],
             ["wait", "running again"], ["wait", "=archived"], ["wait", "watching"], ["sleep", 1.5], ["interrupt"]]
            """#)
        #expect(report.failed == nil, "\(report.failed ?? "") \(report.output)")
        #expect(report.code == 130)
        #expect(!report.output.contains { $0.contains("stopping this run") }, "\(report.output)")
        // First run: both; the header: main alone; other.c: other alone.
        #expect(report.output.filter { $0.contains("=main") }.count == 2, "\(report.output)")
        #expect(report.output.filter { $0.contains("=other") }.count == 2, "\(report.output)")
        #expect(report.output.filter { $0.contains("running again") }.count == 2, "\(report.output)")
    }

    @Test("a change during a run stops it, its ensures run, and the next run starts")
    func changeDuringARun() async throws {
        let space = try project(
            """
            slow: sh "echo =started; sleep 30" {
              sources "src/*.c"
            }
            ensure {
              log "=cleanup"
            }
            """)
        defer { space.remove() }
        let report = try await drive(
            space,
            #"""
            [["wait", "=started"], ["sleep", 0.3], ["edit", "src/main.c", "int y;\n"], ["wait", "stopping this run"],
             ["wait", "=cleanup"], ["wait", "running again"], ["wait", "=started"], ["interrupt"]]
            """#)
        #expect(report.failed == nil, "\(report.failed ?? "") \(report.output)")
        #expect(report.code == 130)
        #expect(report.output.contains { $0.contains("stopped: src/main.c changed") }, "\(report.output)")
    }

    @Test(
        "an edited workflow file is read again and the new text runs; with errors, nothing runs until it is fixed",
        arguments: ["write", "replace"])
    func workflowEdited(save: String) async throws {
        let space = try project(
            """
            compile: sh "echo =first" {
              sources "src/*.c"
            }
            """)
        defer { space.remove() }
        let report = try await drive(
            space,
            #"""
            [["wait", "watching"],
             ["\#(save)", "build.workflow", "compile: sh \"echo =second\" {\n  sources \"src/*.c\"\n}\n"],
             ["wait", "=second"], ["wait", "watching"],
             ["\#(save)", "build.workflow", "compile: sh \"echo =third\" {\n  sourcez \"src/*.c\"\n}\n"],
             ["wait", "has errors"], ["sleep", 0.3],
             ["\#(save)", "build.workflow", "compile: sh \"echo =fourth\"\n"],
             ["wait", "=fourth"], ["wait", "watching"], ["interrupt"]]
            """#)
        #expect(report.failed == nil, "\(report.failed ?? "") \(report.output)")
        #expect(report.code == 130)
        let marks = report.output.filter { $0.contains("=") && !$0.contains("echo") && !$0.contains("⟳") }
        #expect(
            marks.map { $0.components(separatedBy: "=").last ?? "" }.filter { !$0.isEmpty } == ["first", "second", "fourth"],
            "\(report.output)")
        #expect(report.output.contains { $0.contains("build.workflow:2:3: error") && $0.contains("sourcez") }, "\(report.output)")
        #expect(!report.output.contains { $0.contains("=third") }, "a file with errors runs nothing")
    }

    @Test("a step with its own folder (cwd) is watched there: its sources are relative to it")
    func sourcesOfAStepWithAFolder() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("lib/util.c", "int util;\n")
        try space.write(
            "build.workflow",
            """
            lib: sh "cat util.c > /dev/null && echo =built" {
              cwd "lib"
              sources "*.c"
            }
            """)
        let report = try await drive(
            space,
            #"""
            [["wait", "watching"], ["edit", "lib/util.c", "int more;\n"], ["wait", "running again"], ["wait", "watching"], ["interrupt"]]
            """#)
        #expect(report.failed == nil, "\(report.failed ?? "") \(report.output)")
        #expect(report.output.filter { $0.contains("=built") }.count == 2, "\(report.output)")
    }
}
