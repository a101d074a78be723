import Foundation
import Testing

/// Incremental steps on real builds, the first slice: one
/// matcher for sources, generates and the cache (a folder stands for every
/// file below it, dotfiles included); the store remembers the outputs, so
/// a deleted or changed one runs the step again; a failed step forgets its
/// entry. Whether a step ran is read from a side effect (a line in a log),
/// never from timing.
/// See docs/language.md, 'Incremental steps'.
@Suite("End to end: incremental steps on real builds")
struct RealBuildTests {
    private func runs(_ space: Workspace) -> Int {
        (space.read("runs.log") ?? "").split(separator: "\n").count
    }

    /// A project: `build.workflow` and its files, in a workspace of its own
    /// (the caller removes it).
    private func project(_ workflow: String, _ files: [String: String]) throws -> Workspace {
        let space = try Workspace()
        try space.write("build.workflow", workflow)
        for (name, text) in files { try space.write(name, text) }
        return space
    }

    /// How step `mk` ended in a run of the project.
    private func mk(_ space: Workspace) async throws -> String? {
        try await run(space).step("mk")?["status"] as? String
    }

    private func run(_ space: Workspace, _ arguments: [String] = []) async throws -> WorkflowRun {
        let outcome = try await Binary.run(
            ["--report", "json=report.json", "--color", "never"] + arguments + ["build.workflow"],
            in: space.folder, environment: ["RUNLOG": space.path("runs.log")])
        return WorkflowRun(outcome: outcome, reportText: space.read("report.json"))
    }

    @Test(
        "generates naming a folder ('out', 'out/', 'out/**') is stored and restored whole by the cache, dotfiles and subfolders included",
        arguments: ["out", "out/", "out/**"])
    func folderOutputsThroughTheCache(_ pattern: String) async throws {
        let store = try Binary.temporaryFolder()
        let workflow = """
            mk: sh "mkdir -p out/sub && cp src/in.txt out/a.txt && echo b > out/sub/b.txt && echo h > out/.hidden && echo ran >> $RUNLOG" {
              sources "src"
              generates "\(pattern)"
            }
            """
        let first = try project(workflow, ["src/in.txt": "in\n"])
        let second = try project(workflow, ["src/in.txt": "in\n"])
        defer {
            first.remove()
            second.remove()
            try? FileManager.default.removeItem(at: store)
        }
        #expect(try await run(first, ["--cache", store.path]).status == 0)
        let restored = try await run(second, ["--cache", store.path])
        #expect(restored.step("mk")?["from"] as? String == "cache", "\(restored.stdout)\(restored.stderr)")
        #expect(runs(second) == 0)
        #expect(second.read("out/a.txt") == "in\n")
        #expect(second.read("out/sub/b.txt") == "b\n")
        #expect(second.read("out/.hidden") == "h\n")
    }

    @Test("a failed run forgets the step: with its input put back, it runs again instead of being up to date over a broken output")
    func failureForgets() async throws {
        let space = try project(
            """
            mk: sh "cat in.txt > out.txt; echo ran >> $RUNLOG; grep -q good in.txt" {
              sources "in.txt"
              generates "out.txt"
            }
            """, ["in.txt": "good\n"])
        defer { space.remove() }
        #expect(try await run(space).status == 0)
        try space.write("in.txt", "bad\n")
        #expect(try await run(space).status == 1)
        try space.write("in.txt", "good\n")
        #expect(try await mk(space) == "succeeded")
        #expect(runs(space) == 3)
        #expect(space.read("out.txt") == "good\n")
    }

    @Test(
        "a deleted or changed output of a glob or folder pattern runs the step again; untouched, it is up to date",
        arguments: ["out/*", "out"])
    func outputsRemembered(_ pattern: String) async throws {
        let space = try project(
            """
            mk: sh "mkdir -p out && echo a > out/a.txt && echo b > out/b.txt && echo ran >> $RUNLOG" {
              sources "in.txt"
              generates "\(pattern)"
            }
            """, ["in.txt": "x\n"])
        defer { space.remove() }
        #expect(try await mk(space) == "succeeded")
        #expect(try await mk(space) == "up-to-date")
        try FileManager.default.removeItem(atPath: space.path("out/a.txt"))
        #expect(try await mk(space) == "succeeded")
        #expect(space.read("out/a.txt") == "a\n")
        try space.write("out/b.txt", "tampered\n")
        #expect(try await mk(space) == "succeeded")
        #expect(space.read("out/b.txt") == "b\n")
        #expect(runs(space) == 3)
    }

    @Test("a dotfile under a sources folder counts: changing it runs the step")
    func dotfilesInSources() async throws {
        let space = try project(
            """
            mk: sh "echo ran >> $RUNLOG" {
              sources "src"
            }
            """, ["src/main.c": "int main;\n", "src/.config": "a\n"])
        defer { space.remove() }
        #expect(try await mk(space) == "succeeded")
        #expect(try await mk(space) == "up-to-date")
        try space.write("src/.config", "b\n")
        #expect(try await mk(space) == "succeeded")
        #expect(runs(space) == 2)
    }

    @Test("a checkout moved or copied elsewhere is still up to date (paths in the fingerprint are relative to the workflow's folder)")
    func movedCheckout() async throws {
        let space = try project(
            """
            mk: sh "mkdir -p out && cp src/in.txt out/in.txt && echo ran >> runs.log" {
              sources "src"
              generates "out"
            }
            sub: sh "echo ran >> ../runs.log" {
              cwd "sub"
              sources "file.txt"
            }
            """, ["src/in.txt": "x\n", "sub/file.txt": "y\n"])
        let parent = try Binary.temporaryFolder()
        defer {
            space.remove()
            try? FileManager.default.removeItem(at: parent)
        }
        #expect(try await run(space).status == 0)
        let copy = parent.appendingPathComponent("elsewhere")
        let moved = try await Binary.runCommand("/bin/cp", ["-a", space.folder.path, copy.path])
        #expect(moved.status == 0, "\(moved.stderr)")
        let there = Workspace(folder: copy)
        let again = try await run(there)
        #expect(again.statuses == ["mk up-to-date", "sub up-to-date"], "\(again.stdout)")
        #expect(runs(there) == 2)
    }

    @Test("per-file outputs named with the path filters: each file compiled into obj/STEM.o, and a second run is up to date")
    func perFileOutputs() async throws {
        let space = try project(
            """
            foreach f in glob("src/*.c") parallel {
              cc: sh "mkdir -p obj && cp {{f}} obj/{{f|stem}}.o && echo {{f|base}} {{f|ext}} {{f|dir}} >> runs.log" {
                sources "{{f}}"
                generates "obj/{{f|stem}}.o"
              }
            }
            """, ["src/a.c": "a\n", "src/b.c": "b\n"])
        defer { space.remove() }
        #expect(try await run(space).status == 0)
        #expect(space.read("obj/a.o") == "a\n" && space.read("obj/b.o") == "b\n")
        #expect(Set((space.read("runs.log") ?? "").split(separator: "\n")) == ["a.c .c src", "b.c .c src"])
        let again = try await run(space)
        #expect(again.statuses.allSatisfy { $0.hasSuffix("up-to-date") }, "\(again.statuses)")
        #expect(runs(space) == 2)
    }

    @Test("'**' never walks through a link to a folder: a link out of the checkout and a link cycle are matched as links, nothing beyond them counts")
    func starStarStopsAtLinks() async throws {
        let outside = try Binary.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: outside) }
        try "int far;\n".write(to: outside.appendingPathComponent("far.c"), atomically: true, encoding: .utf8)
        let space = try project(
            """
            mk: sh "echo ran >> $RUNLOG" {
              sources "src/**/*.c" "src/**"
            }
            """, ["src/a.c": "int a;\n"])
        defer { space.remove() }
        try FileManager.default.createSymbolicLink(atPath: space.path("src/ext"), withDestinationPath: outside.path)
        try FileManager.default.createSymbolicLink(atPath: space.path("src/loop"), withDestinationPath: "..")
        let bounded = try await Binary.runBounded(
            ["--color", "never", "build.workflow"], seconds: 60, in: space.folder,
            environment: ["RUNLOG": space.path("runs.log")])
        #expect(!bounded.timedOut && bounded.outcome.status == 0, "\(bounded.outcome.stdout)\(bounded.outcome.stderr)")
        #expect(try await mk(space) == "up-to-date")
        // A file beyond the link changed: not a source of this checkout.
        try "int farther;\n".write(to: outside.appendingPathComponent("far.c"), atomically: true, encoding: .utf8)
        #expect(try await mk(space) == "up-to-date")
        try space.write("src/a.c", "int b;\n")
        #expect(try await mk(space) == "succeeded")
        #expect(runs(space) == 2)
    }
}
