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
            .init(look: .followed, path: "src/a b.c", seen: .file(mode: 0o100644, size: 12, modified: 1_795_000_000_123_456_789,
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
}
