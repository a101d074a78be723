import Foundation
import Glibc
import RunnerSystem
import Testing

/// The dependency journal: what a run looked at, once a path, and whether
/// each path still looks the same (what a no-op record is checked by).
@Suite("Dependency journal")
struct DependencyJournalTests {
    private let root: String

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root + "/src", withIntermediateDirectories: true)
        try Data("one\n".utf8).write(to: URL(fileURLWithPath: root + "/src/a.c"))
        try FileManager.default.createSymbolicLink(atPath: root + "/link", withDestinationPath: "src/a.c")
    }

    private func cleanUp() { try? FileManager.default.removeItem(atPath: root) }

    private func look(_ path: String, _ look: DependencyJournal.Look) -> stat? {
        var info = stat()
        return (look == .itself ? lstat(path, &info) : stat(path, &info)) == 0 ? info : nil
    }

    @Test("each path is kept once, in the order first seen; a stop gives what was seen and forgets it")
    func once() throws {
        defer { cleanUp() }
        let journal = DependencyJournal()
        #expect(journal.finish() == nil, "nothing was started")
        journal.start()
        journal.note(root + "/src/a.c", .followed, look(root + "/src/a.c", .followed))
        journal.note(root + "/link", .itself, look(root + "/link", .itself))
        journal.note(root + "/src/a.c", .followed, look(root + "/src/a.c", .followed))
        journal.note(root + "/gone", .followed, nil)
        journal.noteResolved(root + "/link", "/real")
        let recording = try #require(journal.finish())
        #expect(recording.tainted == nil)
        #expect(recording.entries.map(\.path) == [root + "/src/a.c", root + "/link", root + "/gone", root + "/link"])
        #expect(recording.entries.map(\.look) == [.followed, .itself, .followed, .resolved])
        #expect(recording.entries[2].seen == .missing)
        #expect(journal.finish() == nil, "finished once")
        #expect(!journal.isRecording)
    }

    @Test("a path that looks different the second time, or a taint, stops the journal vouching for the run")
    func taints() throws {
        defer { cleanUp() }
        let journal = DependencyJournal()
        journal.start()
        let path = root + "/src/a.c"
        journal.note(path, .followed, look(path, .followed))
        try Data("two, longer\n".utf8).write(to: URL(fileURLWithPath: path))
        journal.note(path, .followed, look(path, .followed))
        #expect(!journal.isRecording, "it stops at the change")
        let changed = try #require(journal.finish())
        #expect(changed.tainted?.contains("changed while the run read it") == true, "\(changed.tainted ?? "")")
        #expect(changed.entries.isEmpty)

        journal.start()
        journal.taint("a step ran")
        journal.note(path, .followed, look(path, .followed))
        let tainted = try #require(journal.finish())
        #expect(tainted.tainted == "a step ran")
        #expect(tainted.entries.isEmpty, "nothing is noted after a taint")
    }

    @Test("an entry holds while its path looks the same, and not after an edit of the same size, a new link target or a removal")
    func holds() throws {
        defer { cleanUp() }
        let file = DependencyJournal.Entry(look: .followed, path: root + "/src/a.c", seen: .init(try #require(look(root + "/src/a.c", .followed))))
        let link = DependencyJournal.Entry(look: .itself, path: root + "/link", seen: .init(try #require(look(root + "/link", .itself))))
        let folder = DependencyJournal.Entry(look: .followed, path: root + "/src", seen: .init(try #require(look(root + "/src", .followed))))
        let missing = DependencyJournal.Entry(look: .followed, path: root + "/new.c", seen: .missing)
        #expect(file.holds && link.holds && folder.holds && missing.holds)

        // Same size, same modification time put back: the change time
        // still moves (no call can set it).
        let before = try #require(look(root + "/src/a.c", .followed))
        try Data("ONE\n".utf8).write(to: URL(fileURLWithPath: root + "/src/a.c"))
        var times = [before.st_atim, before.st_mtim]
        #expect(utimensat(AT_FDCWD, root + "/src/a.c", &times, 0) == 0)
        #expect(!file.holds, "an edit of the same size with its old time put back")

        try FileManager.default.removeItem(atPath: root + "/link")
        try FileManager.default.createSymbolicLink(atPath: root + "/link", withDestinationPath: "src/other.c")
        #expect(!link.holds, "the link points elsewhere")

        try Data("new\n".utf8).write(to: URL(fileURLWithPath: root + "/new.c"))
        #expect(!missing.holds, "something is there now")
        try Data("x\n".utf8).write(to: URL(fileURLWithPath: root + "/src/b.c"))
        #expect(!folder.holds, "a name came into the folder")
    }
}
