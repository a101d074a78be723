import Foundation
import Glibc
import RunnerSystem
import Testing

@testable import WorkflowRun

/// The no-op record's file: what is written is what is read back, a file
/// of another key or format is none, and a damaged one is none.
@Suite("No-op record file")
struct NoOpRecordFileTests {
    private let record = NoOpRecord(
        key: NoOpRecord.key(["a", "b"]), workflow: "build",
        shown: ["cc[0]", "cc[1]", "a step with spaces"],
        kept: [.init(id: "cc[0]", label: "cc", kind: "sh", attempts: 1), .init(id: "x y", label: nil, kind: "exec", attempts: 2)],
        omitted: 3,
        entries: [
            .init(
                look: .followed, path: "src/a b.c",
                seen: .file(
                    mode: 0o100644, size: 12, modified: 1_795_000_000_123_456_789,
                    changed: 1_795_000_000_223_456_789, inode: UInt64.max - 3, device: 65_024)),
            .init(look: .itself, path: "/abs/link", seen: .missing),
            .init(look: .resolved, path: "lib/x.workflow", seen: .path("/real/lib/x.workflow")),
        ])

    @Test("written and read back, the record is the same")
    func roundTrip() throws {
        let read = try #require(NoOpRecord.parse(Array(record.text.utf8), key: record.key))
        #expect(read == record)
    }

    @Test("another key, another format, a cut file or an unknown line is no record")
    func refusals() {
        let bytes = Array(record.text.utf8)
        #expect(NoOpRecord.parse(bytes, key: NoOpRecord.key(["a", "c"])) == nil)
        #expect(NoOpRecord.parse(Array(record.text.replacingOccurrences(of: "noop/1", with: "noop/9").utf8), key: record.key) == nil)
        #expect(NoOpRecord.parse(Array(bytes.dropLast(5)), key: record.key) == nil)
        #expect(NoOpRecord.parse(Array((record.text + "what 1\n").utf8), key: record.key) == nil)
        #expect(NoOpRecord.key(["ab", "c"]) != NoOpRecord.key(["a", "bc"]), "parts are kept apart")
    }

    @Test("read while checking, a record of paths that still look the same is one, with no entries kept; one changed path, none")
    func checking() throws {
        let folder = "/tmp/noop-record-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        #expect(mkdir(folder, 0o755) == 0)
        defer { _ = system("rm -rf '\(folder)'") }
        let file = folder + "/a b.c"
        #expect(creat(file, 0o644) >= 0)
        var info = stat()
        #expect(stat(file, &info) == 0)
        let entries: [DependencyJournal.Entry] = [
            .init(look: .followed, path: file, seen: .init(info)),
            .init(look: .itself, path: folder + "/gone", seen: .missing),
        ]
        let held = NoOpRecord(key: "k", workflow: "w", shown: ["a"], kept: [], omitted: 0, entries: entries)
        let checked = try #require(NoOpRecord.parse(Array(held.text.utf8), key: "k", checking: true))
        #expect(checked.entries.isEmpty && checked.shown == ["a"])
        #expect(creat(folder + "/gone", 0o644) >= 0)
        #expect(NoOpRecord.parse(Array(held.text.utf8), key: "k", checking: true) == nil, "a path that is there now")
        #expect(NoOpRecord.parse(Array(held.text.utf8), key: "k") != nil, "read without checking, it is a record")
    }
}
