import PromiseEngine
import WorkflowModel

/// A cursor over the bytes inside `{{ }}`.
struct ExpressionScanner {
    let bytes: [UInt8]
    var position: Int
    let end: Int

    var peek: UInt8? { position < end ? bytes[position] : nil }

    func peek(_ offset: Int) -> UInt8? { position + offset < end ? bytes[position + offset] : nil }

    /// Whether the identifier at the cursor is exactly `word`.
    func peek(word: String) -> Bool {
        var offset = 0
        for byte in word.utf8 {
            guard peek(offset) == byte else { return false }
            offset += 1
        }
        guard let next = peek(offset) else { return true }
        return !Lexer.isIdentifierContinue(next)
    }

    var atClose: Bool { peek == UInt8(ascii: "}") && peek(1) == UInt8(ascii: "}") }

    mutating func skipSpaces() {
        while let byte = peek, byte == 0x20 || byte == 0x09 { position += 1 }
    }

    mutating func consume(_ byte: UInt8) -> Bool {
        guard peek == byte else { return false }
        position += 1
        return true
    }

    mutating func consume(_ first: UInt8, _ second: UInt8) -> Bool {
        guard peek == first, peek(1) == second else { return false }
        position += 2
        return true
    }

    mutating func identifier() -> String? {
        guard let first = peek, Lexer.isIdentifierStart(first) else { return nil }
        let start = position
        while let byte = peek, Lexer.isIdentifierContinue(byte) { position += 1 }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    /// A header name: letters, digits, `-` and `_`.
    mutating func word() -> String? {
        let start = position
        while let byte = peek, Lexer.isIdentifierContinue(byte) { position += 1 }
        return position > start ? String(decoding: bytes[start..<position], as: UTF8.self) : nil
    }

    var currentCharacter: String {
        guard position < end else { return "" }
        var stop = position + 1
        while stop < end, bytes[stop] & 0xC0 == 0x80 { stop += 1 }
        return String(decoding: bytes[position..<stop], as: UTF8.self)
    }

    func rangeOfCurrentCharacter() -> SourceRange {
        var stop = min(position + 1, end)
        while stop < end, bytes[stop] & 0xC0 == 0x80 { stop += 1 }
        return SourceRange(start: position, end: max(stop, position))
    }

    /// The offset of the `'` closing a raw string opened at `position`.
    func endOfRawString() -> Int? {
        var cursor = position + 1
        while cursor < end {
            if bytes[cursor] == UInt8(ascii: "'") { return cursor }
            cursor += 1
        }
        return nil
    }

    /// The offset of the `"` closing the string opened at `position`,
    /// following nested `{{ "..." }}` (iteratively).
    func endOfString() -> Int? {
        var stack: [Bool] = [true]
        var cursor = position + 1
        while cursor < end {
            let byte = bytes[cursor]
            let next: UInt8? = cursor + 1 < end ? bytes[cursor + 1] : nil
            if stack[stack.count - 1] {
                if byte == UInt8(ascii: "\\") {
                    cursor += 2
                    continue
                } else if byte == UInt8(ascii: "\"") {
                    stack.removeLast()
                    if stack.isEmpty { return cursor }
                } else if byte == UInt8(ascii: "{"), next == UInt8(ascii: "{") {
                    stack.append(false)
                    cursor += 1
                }
            } else {
                if byte == UInt8(ascii: "}"), next == UInt8(ascii: "}") {
                    stack.removeLast()
                    cursor += 1
                } else if byte == UInt8(ascii: "\"") {
                    stack.append(true)
                }
            }
            cursor += 1
        }
        return nil
    }

    /// Where parsing resumes after an error: after the `}}` that closes this
    /// expression, skipping nested strings.
    mutating func endOfExpression() -> Int {
        while position < end {
            if bytes[position] == UInt8(ascii: "\"") {
                guard let close = endOfString() else { return end }
                position = close + 1
                continue
            }
            if atClose { return position + 2 }
            position += 1
        }
        return end
    }
}
