import WorkflowModel

/// How positions count characters on a line (LSP 3.17
/// `PositionEncodingKind`): UTF-16 code units unless the client offers
/// another.
package enum PositionEncoding: String, Sendable {
    case utf8 = "utf-8"
    case utf16 = "utf-16"
    case utf32 = "utf-32"
}

/// A position in a document: a line and a character offset on it, both
/// from 0, the character in the document's encoding.
package struct TextPosition: Equatable, Sendable {
    package var line: Int
    package var character: Int

    package init(line: Int, character: Int) {
        self.line = line
        self.character = character
    }
}

/// A range of positions: start included, end excluded.
package struct TextRange: Equatable, Sendable {
    package var start: TextPosition
    package var end: TextPosition

    package init(start: TextPosition, end: TextPosition) {
        self.start = start
        self.end = end
    }
}

/// A text's lines, for turning byte offsets into positions and back in
/// any encoding.
package struct LineIndex: Sendable {
    package let bytes: [UInt8]
    /// The byte offset where each line starts.
    package let starts: [Int]

    /// Lines end at LF, CRLF or a lone CR, as LSP 3.17 and `check` count them.
    package init(_ bytes: [UInt8]) {
        self.bytes = bytes
        self.starts = LineBreaks.lineStarts(bytes)
    }

    /// The line holding a byte offset.
    package func line(of offset: Int) -> Int {
        var low = 0
        var high = starts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// Where a line's text ends (before its newline).
    package func end(ofLine line: Int) -> Int {
        guard line + 1 < starts.count else { return bytes.count }
        let next = starts[line + 1] - 1
        return next > starts[line] && bytes[next - 1] == 0x0D ? next - 1 : next
    }

    /// The position of a byte offset.
    package func position(of offset: Int, _ encoding: PositionEncoding) -> TextPosition {
        let offset = min(max(0, offset), bytes.count)
        let line = line(of: offset)
        return TextPosition(line: line, character: units(from: starts[line], to: offset, encoding))
    }

    /// The range of two byte offsets.
    package func range(_ start: Int, _ end: Int, _ encoding: PositionEncoding) -> TextRange {
        TextRange(start: position(of: start, encoding), end: position(of: end, encoding))
    }

    /// The byte offset of a position; a character past the line's end is
    /// its end, a line past the last is the end of the text.
    package func offset(of position: TextPosition, _ encoding: PositionEncoding) -> Int {
        guard position.line >= 0 else { return 0 }
        guard position.line < starts.count else { return bytes.count }
        let end = end(ofLine: position.line)
        var offset = starts[position.line]
        var counted = 0
        while offset < end, counted < position.character {
            let (length, units) = Self.scalar(bytes, at: offset, encoding)
            if counted + units > position.character { break }
            counted += units
            offset += length
        }
        return offset
    }

    private func units(from start: Int, to end: Int, _ encoding: PositionEncoding) -> Int {
        if encoding == .utf8 { return end - start }
        var offset = start
        var count = 0
        while offset < end {
            let (length, units) = Self.scalar(bytes, at: offset, encoding)
            count += units
            offset += length
        }
        return count
    }

    /// The byte length of the UTF-8 sequence at `offset` and how many code
    /// units it is in `encoding` (an invalid byte counts as one U+FFFD).
    private static func scalar(_ bytes: [UInt8], at offset: Int, _ encoding: PositionEncoding) -> (Int, Int) {
        let lead = bytes[offset]
        let length: Int
        switch lead {
        case 0..<0x80: length = 1
        case 0xC2..<0xE0: length = 2
        case 0xE0..<0xF0: length = 3
        case 0xF0..<0xF5: length = 4
        default: length = 1
        }
        let valid = offset + length <= bytes.count && (1..<length).allSatisfy { bytes[offset + $0] & 0xC0 == 0x80 }
        let real = valid ? length : 1
        switch encoding {
        case .utf8: return (real, real)
        case .utf16: return (real, valid && length == 4 ? 2 : 1)
        case .utf32: return (real, 1)
        }
    }
}
