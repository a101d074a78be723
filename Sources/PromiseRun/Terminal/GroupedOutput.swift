/// The output of one step under `--output grouped`, held until the step
/// ends: its last lines, within a line count and a byte budget, and how
/// many earlier lines were dropped. Appending is O(1) (the dropped lines
/// are skipped by an index and compacted now and then), so a step that
/// prints 100 MB costs no more than under `--output prefixed`, and memory
/// stays within the budget whatever it prints.
struct GroupedOutput {
    static let lineLimit = 5000
    static let byteLimit = 1 << 20
    /// A longer line is cut (its start kept) with a note of its size.
    static let lineByteLimit = 64 << 10

    private var lines: [String] = []
    private var start = 0
    private var bytes = 0
    private(set) var dropped = 0

    var isEmpty: Bool { start == lines.count }

    /// The kept lines, oldest first.
    var kept: ArraySlice<String> { lines[start...] }

    mutating func append(_ line: String) {
        var line = line
        let size = line.utf8.count
        if size > Self.lineByteLimit {
            line = String(decoding: line.utf8.prefix(Self.lineByteLimit), as: UTF8.self) + " … (a line of \(size) bytes, cut)"
        }
        lines.append(line)
        bytes += line.utf8.count
        while lines.count - start > 1, lines.count - start > Self.lineLimit || bytes > Self.byteLimit {
            bytes -= lines[start].utf8.count
            lines[start] = ""
            start += 1
            dropped += 1
        }
        if start > 1024, start * 2 > lines.count {
            lines.removeFirst(start)
            start = 0
        }
    }
}
