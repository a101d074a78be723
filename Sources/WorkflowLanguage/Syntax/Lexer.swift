import PromiseEngine
import WorkflowModel

/// Splits a workflow file into tokens, on demand, working on UTF-8 bytes.
/// Comments and spaces are skipped; newlines are tokens (they end
/// statements). Errors (an unterminated string, a stray character) are
/// reported to the bag and the lexer carries on.
struct Lexer {
    let bytes: [UInt8]
    private(set) var position = 0
    /// Deepest nesting of strings inside `{{ }}` inside strings.
    static let maximumStringNesting = 16

    init(bytes: [UInt8]) {
        self.bytes = bytes
        // A UTF-8 byte order mark is not part of the text.
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            position = 3
        }
    }

    mutating func next(_ diagnostics: inout DiagnosticBag) -> Token {
        skipSpacesAndComments()
        let start = position
        guard position < bytes.count else {
            return Token(kind: .endOfFile, range: SourceRange(start: start, end: start))
        }
        let byte = bytes[position]
        position += 1
        func token(_ kind: TokenKind) -> Token {
            Token(kind: kind, range: SourceRange(start: start, end: position))
        }
        switch byte {
        case 0x0A: return token(.newline)
        case 0x0D:
            if peek() == 0x0A { position += 1 }
            return token(.newline)
        case UInt8(ascii: ":"): return token(.colon)
        case UInt8(ascii: ";"): return token(.semicolon)
        case UInt8(ascii: ","): return token(.comma)
        case UInt8(ascii: "|"): return token(.pipe)
        case UInt8(ascii: "{") where peek() == UInt8(ascii: "{"):
            // `{{n}}`, `{{r}}/s` outside a string: a load shape's count,
            // duration, limit or rate from a template, a word
            // the parser reads as a number.
            while let next = peek(), next != 0x0A, next != 0x0D {
                position += 1
                if next == UInt8(ascii: "}"), bytes[position - 2] == UInt8(ascii: "}"), position - start >= 4 { break }
            }
            scanWord()
            return token(.number)
        case UInt8(ascii: "{"): return token(.leftBrace)
        case UInt8(ascii: "}"): return token(.rightBrace)
        case UInt8(ascii: "["): return token(.leftBracket)
        case UInt8(ascii: "]"): return token(.rightBracket)
        case UInt8(ascii: "("): return token(.leftParen)
        case UInt8(ascii: ")"): return token(.rightParen)
        case UInt8(ascii: "="):
            if peek() == UInt8(ascii: "=") {
                position += 1
                return token(.equalEqual)
            }
            return token(.equal)
        case UInt8(ascii: "!"):
            if peek() == UInt8(ascii: "=") {
                position += 1
                return token(.bangEqual)
            }
            diagnostics.error("unexpected '!'; did you mean '!=' or 'not'?", at: SourceRange(start: start, end: position))
            return token(.invalid)
        case UInt8(ascii: "<"):
            if peek() == UInt8(ascii: "=") {
                position += 1
                return token(.lessEqual)
            }
            return token(.less)
        case UInt8(ascii: ">"):
            if peek() == UInt8(ascii: "=") {
                position += 1
                return token(.greaterEqual)
            }
            return token(.greater)
        case UInt8(ascii: "'"):
            // An unterminated string was reported here; the parser must not
            // report it again, so it gets an invalid token.
            return token(scanRawString(start: start, &diagnostics) ? .rawString : .invalid)
        case UInt8(ascii: "\""):
            if peek() == UInt8(ascii: "\""), peek(1) == UInt8(ascii: "\"") {
                position += 2
                return token(scanMultilineString(start: start, &diagnostics) ? .multilineString : .invalid)
            }
            return token(scanString(start: start, &diagnostics) ? .string : .invalid)
        case UInt8(ascii: "-") where peek().map(Lexer.isDigit) == true:
            scanWord()
            return token(.number)
        default:
            if Lexer.isDigit(byte) {
                scanWord()
                return token(.number)
            }
            if Lexer.isIdentifierStart(byte) {
                while let next = peek(),
                    Lexer.isIdentifierContinue(next)
                        // `p99.9`: a dot between digits (a threshold's percentile).
                        || (next == UInt8(ascii: ".") && Lexer.isDigit(bytes[position - 1]) && peek(1).map(Lexer.isDigit) == true)
                {
                    position += 1
                }
                return token(.identifier)
            }
            // Skip the rest of a multi-byte character so it is one error.
            while let next = peek(), next & 0xC0 == 0x80 { position += 1 }
            let range = SourceRange(start: start, end: position)
            let shown = String(decoding: bytes[start..<position], as: UTF8.self)
            let message: String
            switch byte {
            case UInt8(ascii: "$"):
                message = "unexpected '$'; '$NAME' means something only inside a string passed to the shell; promise-run interpolates with '{{NAME}}'"
            case UInt8(ascii: "?"):
                message = "unexpected '\(shown)'; '??' is written inside '{{ }}' in a string"
            default:
                message =
                    byte < 0x20 || byte == 0x7F
                    ? "unexpected control character (byte \(byte))"
                    : "unexpected character '\(shown)'"
            }
            diagnostics.error(message, at: range)
            return token(.invalid)
        }
    }

    // MARK: - Pieces

    private func peek(_ offset: Int = 0) -> UInt8? {
        let index = position + offset
        return index < bytes.count ? bytes[index] : nil
    }

    private mutating func skipSpacesAndComments() {
        while position < bytes.count {
            let byte = bytes[position]
            if byte == 0x20 || byte == 0x09 {
                position += 1
            } else if byte == UInt8(ascii: "#") {
                while position < bytes.count, bytes[position] != 0x0A, bytes[position] != 0x0D { position += 1 }
            } else if byte == UInt8(ascii: "\\"), let next = peek(1), next == 0x0A || next == 0x0D {
                // A backslash at the end of a line continues the statement
                // (whatever the line break: LF, CRLF or CR).
                position += next == 0x0D && peek(2) == 0x0A ? 3 : 2
            } else {
                return
            }
        }
    }

    private mutating func scanWord() {
        while let next = peek(),
            Lexer.isIdentifierContinue(next) || next == UInt8(ascii: ".")
                || (next == UInt8(ascii: "/") && peek(1).map(Lexer.isIdentifierStart) == true)
        {
            // `/` only before a letter: a rate, `500/s`.
            position += 1
        }
        // A share: `1%` (a threshold's failures).
        if peek() == UInt8(ascii: "%") { position += 1 }
    }

    /// False (after reporting) when the string is not terminated.
    private mutating func scanRawString(start: Int, _ diagnostics: inout DiagnosticBag) -> Bool {
        while let byte = peek() {
            if byte == UInt8(ascii: "'") {
                position += 1
                return true
            }
            if byte == 0x0A || byte == 0x0D { break }
            position += 1
        }
        diagnostics.error("unterminated string; a '...' string must end on the line it starts", at: SourceRange(start: start, end: position))
        return false
    }

    /// Scans a `"..."` string, following nested strings inside `{{ }}`
    /// with an explicit stack (no recursion).
    private mutating func scanString(start: Int, _ diagnostics: inout DiagnosticBag) -> Bool {
        // Each entry: true = inside a string, false = inside `{{ }}`.
        var stack: [Bool] = [true]
        while let byte = peek() {
            if byte == 0x0A || byte == 0x0D { break }
            if stack[stack.count - 1] {
                switch byte {
                case UInt8(ascii: "\\"):
                    position += peek(1).map { $0 == 0x0A || $0 == 0x0D } == true ? 1 : 2
                case UInt8(ascii: "\""):
                    position += 1
                    stack.removeLast()
                    if stack.isEmpty { return true }
                case UInt8(ascii: "{") where peek(1) == UInt8(ascii: "{"):
                    position += 2
                    stack.append(false)
                default:
                    position += 1
                }
            } else {
                switch byte {
                case UInt8(ascii: "}") where peek(1) == UInt8(ascii: "}"):
                    position += 2
                    stack.removeLast()
                case UInt8(ascii: "\""):
                    position += 1
                    if stack.count >= Lexer.maximumStringNesting {
                        diagnostics.error(
                            "strings nested too deeply inside '{{ }}' (limit \(Lexer.maximumStringNesting))",
                            at: SourceRange(start: position - 1, end: position))
                        skipLine()
                        return false
                    }
                    stack.append(true)
                case UInt8(ascii: "'"):
                    position += 1
                    while let next = peek(), next != UInt8(ascii: "'"), next != 0x0A, next != 0x0D { position += 1 }
                    if peek() == UInt8(ascii: "'") { position += 1 }
                default:
                    position += 1
                }
            }
        }
        let inside = stack.contains(false)
        diagnostics.error(
            inside
                ? "unterminated '{{' in string; expected '}}' and then '\"' before the end of the line"
                : "unterminated string; expected '\"' before the end of the line",
            at: SourceRange(start: start, end: position))
        return false
    }

    private mutating func skipLine() {
        while let byte = peek(), byte != 0x0A, byte != 0x0D { position += 1 }
    }

    /// Scans a `"""` string: the opening delimiter ends its line; the string
    /// ends at the first line made of spaces and `"""`.
    private mutating func scanMultilineString(start: Int, _ diagnostics: inout DiagnosticBag) -> Bool {
        while let byte = peek(), byte == 0x20 || byte == 0x09 { position += 1 }
        guard peek() == 0x0A || (peek() == 0x0D) else {
            diagnostics.error(
                "a multi-line string must start with '\"\"\"' at the end of a line",
                at: SourceRange(start: start, end: position + (peek() == nil ? 0 : 1)))
            skipLine()
            return false
        }
        while position < bytes.count {
            // At a line break: look at the next line.
            if bytes[position] == 0x0D { position += 1 }
            if position < bytes.count, bytes[position] == 0x0A { position += 1 }
            var cursor = position
            while cursor < bytes.count, bytes[cursor] == 0x20 || bytes[cursor] == 0x09 { cursor += 1 }
            if cursor + 2 < bytes.count, bytes[cursor] == UInt8(ascii: "\""), bytes[cursor + 1] == UInt8(ascii: "\""),
                bytes[cursor + 2] == UInt8(ascii: "\"")
            {
                position = cursor + 3
                return true
            }
            position = cursor
            skipLine()
        }
        diagnostics.error("unterminated multi-line string; expected a line with the closing '\"\"\"'", at: SourceRange(start: start, end: start + 3))
        return false
    }

    // MARK: - Character classes

    static func isDigit(_ byte: UInt8) -> Bool { ASCIIByte.isDigit(byte) }
    static func isIdentifierStart(_ byte: UInt8) -> Bool { ASCIIByte.isIdentifierStart(byte) }
    static func isIdentifierContinue(_ byte: UInt8) -> Bool { ASCIIByte.isIdentifierContinue(byte) }
}
