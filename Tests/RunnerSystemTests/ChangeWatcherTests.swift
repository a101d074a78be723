import Foundation
import RunnerSystem
import Testing

/// `--watch`'s watcher on a real folder: a change to a watched file is
/// seen and named; a change to a file the build generates (a literal
/// pattern, or one a run added while it went on) never counts.
@Suite("The change watcher")
struct ChangeWatcherTests {
    private func folder() throws -> String {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("watch-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root + "/src", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/obj", withIntermediateDirectories: true)
        try "int a;\n".write(toFile: root + "/src/a.c", atomically: true, encoding: .utf8)
        try "old\n".write(toFile: root + "/obj/a.o", atomically: true, encoding: .utf8)
        return root
    }

    /// Waits for a change for at most `polls` tenths of a second.
    private func change(_ watcher: ChangeWatcher, polls: Int) -> String? {
        var left = polls
        return watcher.waitForChange {
            left -= 1
            return left < 0
        }
    }

    @Test("a saved source is seen, by its path")
    func sourceChange() throws {
        let root = try folder()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let watcher = ChangeWatcher(patterns: [("src/*.c", root)], files: [])
        #expect(watcher.count == 1)
        try "int b;\n".write(toFile: root + "/src/a.c", atomically: false, encoding: .utf8)
        #expect(change(watcher, polls: 100) == root + "/src/a.c")
    }

    @Test("what the build generates starts nothing: a literal pattern, and one a run added as it went")
    func generatedFiles() throws {
        let root = try folder()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let generated = GeneratedOutputs()
        let watcher = ChangeWatcher(
            patterns: [("obj/*.o", root), ("src/*.c", root)], files: [],
            ignoring: [("obj/a.o", root)], generated: generated)
        try "new\n".write(toFile: root + "/obj/a.o", atomically: false, encoding: .utf8)
        generated.add(["obj/b.o"], base: root)
        try "made\n".write(toFile: root + "/obj/b.o", atomically: false, encoding: .utf8)
        #expect(change(watcher, polls: 10) == nil)
        // A real change after them is still seen.
        try "int c;\n".write(toFile: root + "/src/a.c", atomically: false, encoding: .utf8)
        #expect(change(watcher, polls: 100) == root + "/src/a.c")
    }
}
