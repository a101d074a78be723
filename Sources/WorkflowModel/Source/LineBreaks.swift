/// Line breaks as the language reads them: LF, CRLF and a lone CR are each
/// one break (as LSP 3.17 counts them), so a file saved on Windows or by
/// git with `autocrlf` reads as it does on Linux. The lexer, the line
/// tables of diagnostics and of the language server, `include` and `fmt`
/// all split lines here.
package enum LineBreaks {
    /// Where each line starts: 0, then just after each break.
    package static func lineStarts(_ bytes: [UInt8]) -> [Int] {
        var starts = [0]
        starts.reserveCapacity(bytes.count / 24 + 1)
        bytes.withUnsafeBufferPointer { buffer in
            for index in 0..<buffer.count {
                let byte = buffer[index]
                if byte == 0x0A || (byte == 0x0D && (index + 1 == buffer.count || buffer[index + 1] != 0x0A)) {
                    starts.append(index + 1)
                }
            }
        }
        return starts
    }

    /// The line that starts at `start`: where its text ends (at its break,
    /// or the end of the bytes) and where the next line starts.
    package static func line(from start: Int, in bytes: [UInt8]) -> (end: Int, next: Int) {
        var end = start
        while end < bytes.count, bytes[end] != 0x0A, bytes[end] != 0x0D { end += 1 }
        guard end < bytes.count else { return (end, end) }
        return (end, bytes[end] == 0x0D && end + 1 < bytes.count && bytes[end + 1] == 0x0A ? end + 2 : end + 1)
    }

    /// Whether `bytes` end with a line break (or are empty).
    package static func endsWithBreak(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.last.map { $0 == 0x0A || $0 == 0x0D } ?? true
    }

    /// The bytes with every break as one LF.
    package static func normalized(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var previous: UInt8 = 0
        for byte in bytes {
            if byte == 0x0D {
                result.append(0x0A)
            } else if byte != 0x0A || previous != 0x0D {
                result.append(byte)
            }
            previous = byte
        }
        return result
    }
}
