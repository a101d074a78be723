import PromiseEngine

/// A byte range in a workflow file: UTF-8 offsets, `start` inclusive,
/// `end` exclusive. Lines and columns are computed only when reported.
package struct SourceRange: Sendable, Hashable {
    // 32 bits each: ranges are in every node and expression, and a
    // workflow file is never 4 GB.
    // Inlinable: the language makes and reads ranges for every token and
    // node, from another module.
    @usableFromInline var storedStart: UInt32
    @usableFromInline var storedEnd: UInt32

    @inlinable
    package var start: Int {
        get { Int(storedStart) }
        set { storedStart = UInt32(clamping: newValue) }
    }

    @inlinable
    package var end: Int {
        get { Int(storedEnd) }
        set { storedEnd = UInt32(clamping: newValue) }
    }

    @inlinable
    package init(start: Int, end: Int) {
        storedStart = UInt32(clamping: start)
        storedEnd = UInt32(clamping: max(start, end))
    }

    /// A range from the start of `self` to the end of `other`.
    @inlinable
    package func extended(to other: SourceRange) -> SourceRange {
        SourceRange(start: min(start, other.start), end: max(end, other.end))
    }
}

/// A 1-based line and column (the column counts UTF-8 bytes), as
/// diagnostics and reports show them.
package struct SourcePosition: Sendable, Hashable, CustomStringConvertible {
    package var line: Int
    package var column: Int
    /// The included file it is in (`include`); nil in the workflow's own file.
    package var file: String?

    package init(line: Int, column: Int, file: String? = nil) {
        self.line = line
        self.column = column
        self.file = file
    }

    package var description: String { (file.map { $0 + ":" } ?? "") + "\(line):\(column)" }
}

/// The text of one workflow file and the path it was read from (`-` means
/// standard input). Immutable, so it can be shared across tasks.
///
/// With `include`, the text is the workflow's file with every included
/// file inserted at its `include` line; `segments` say which bytes came
/// from which file, so that locations and diagnostics name the file and
/// line a person wrote.
package final class SourceFile: Sendable {
    /// The path as the user gave it; diagnostics print it as is.
    package let path: String
    /// The file's bytes, UTF-8 (with included files, all of them).
    package let bytes: [UInt8]
    /// Where the bytes came from; empty when they are all this file's.
    package let segments: [Segment]
    private let mainLines: LineTable

    /// A run of bytes taken from one file.
    package struct Segment: Sendable {
        /// Offsets in `bytes`.
        package let start: Int
        package let end: Int
        /// The file they came from (its own bytes).
        package let file: SourceFile
        /// Where the run starts in that file.
        package let fileOffset: Int
        /// The `include` line that brought the file in: "main.workflow:4".
        package let includedFrom: String?
        /// The file's line table.
        package let lines: LineTable

        package init(start: Int, end: Int, file: SourceFile, fileOffset: Int, includedFrom: String?) {
            self.start = start
            self.end = end
            self.file = file
            self.fileOffset = fileOffset
            self.includedFrom = includedFrom
            self.lines = file.lineTable()
        }
    }

    package init(path: String, bytes: [UInt8], segments: [Segment] = []) {
        self.path = path
        self.bytes = bytes
        self.segments = segments
        self.mainLines = LineTable(bytes: bytes)
    }

    package convenience init(path: String, text: String) {
        self.init(path: path, bytes: Array(text.utf8))
    }

    /// The name diagnostics print for this file.
    package var displayPath: String { path == "-" ? "<stdin>" : path }

    /// The text of `range`, decoded leniently (invalid UTF-8 becomes U+FFFD).
    package func text(_ range: SourceRange) -> String {
        let start = min(max(0, range.start), bytes.count)
        let end = min(max(start, range.end), bytes.count)
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// Builds the table of line starts of these bytes.
    package func lineTable() -> LineTable { mainLines }

    /// The segment holding `offset`, when the text has included files.
    package func segment(at offset: Int) -> Segment? {
        guard !segments.isEmpty else { return nil }
        var low = 0
        var high = segments.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if segments[middle].start <= offset { low = middle } else { high = middle - 1 }
        }
        return segments[low]
    }

    /// The line and column of one byte offset, in the file it came from
    /// (`file` set for an included file).
    package func location(of offset: Int) -> SourcePosition {
        guard let segment = segment(at: offset) else { return mainLines.location(of: offset) }
        var location = segment.lines.location(of: segment.fileOffset + offset - segment.start)
        if segment.file !== self, segment.includedFrom != nil { location.file = segment.file.displayPath }
        return location
    }
}

/// The byte offsets at which each line of a file starts.
package struct LineTable: Sendable {
    /// `starts[i]` is the offset of line `i + 1`.
    package let starts: [Int]
    package let count: Int

    /// Lines end at LF, CRLF or a lone CR (`LineBreaks`).
    package init(bytes: [UInt8]) {
        self.starts = LineBreaks.lineStarts(bytes)
        self.count = bytes.count
    }

    /// The 1-based line and column of `offset`.
    @inlinable
    package func location(of offset: Int) -> SourcePosition {
        let offset = min(max(0, offset), count)
        var low = 0
        var high = starts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        return SourcePosition(line: low + 1, column: offset - starts[low] + 1)
    }

    /// The byte range of line `line` (1-based), without its newline.
    package func lineRange(_ line: Int, in bytes: [UInt8]) -> Range<Int> {
        let start = starts[line - 1]
        var end = line < starts.count ? starts[line] - 1 : count
        if end > start, bytes[end - 1] == 0x0D { end -= 1 }
        return start..<max(start, end)
    }
}
