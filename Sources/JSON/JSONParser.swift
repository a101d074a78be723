/// A JSON text that could not be parsed: what was wrong and at which byte.
package struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    package var message: String
    /// The offset, in bytes from the start, where parsing stopped.
    package var offset: Int

    package var description: String { "\(message) at byte \(offset)" }
}

extension JSONDocument {
    /// The deepest nesting of arrays and objects accepted: deeper documents
    /// are rejected instead of overflowing the stack.
    package static let maximumDepth = 512

    /// Parses a whole JSON text (white space around it allowed, a UTF-8
    /// byte order mark skipped). Invalid UTF-8 inside strings is replaced
    /// with U+FFFD.
    package static func parse(_ text: String) throws(JSONParseError) -> JSONDocument {
        var text = text
        return try text.withUTF8 { bytes in Result { () throws(JSONParseError) in try parse(bytes) } }.get()
    }

    package static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONDocument {
        try bytes.withUnsafeBufferPointer { buffer in Result { () throws(JSONParseError) in try parse(buffer) } }.get()
    }

    package static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONParseError) -> JSONDocument {
        var parser = JSONParser(bytes)
        return try parser.parseDocument()
    }
}

/// A recursive-descent parser over UTF-8 bytes.
package struct JSONParser {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0
    private var depth = 0

    package init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    package mutating func parseDocument() throws(JSONParseError) -> JSONDocument {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { position = 3 }
        skipSpace()
        let value = try parseValue()
        skipSpace()
        guard position == bytes.count else { throw error("unexpected text after the JSON value") }
        return value
    }

    private func error(_ message: String) -> JSONParseError {
        JSONParseError(message: message, offset: position)
    }

    private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func skipSpace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    private mutating func parseValue() throws(JSONParseError) -> JSONDocument {
        guard let byte = current else { throw error("unexpected end of JSON") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectWord("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectWord("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectWord("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error("unexpected character '\(Self.printable(byte))'")
        }
    }

    private mutating func expectWord(_ word: StaticString) throws(JSONParseError) {
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count else { throw error("unexpected end of JSON") }
        for index in 0..<count where bytes[position + index] != word.utf8Start[index] {
            throw error("invalid literal; expected '\(word)'")
        }
        position += count
    }

    private mutating func enter() throws(JSONParseError) {
        depth += 1
        guard depth <= JSONDocument.maximumDepth else {
            throw error("nested deeper than \(JSONDocument.maximumDepth) levels")
        }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONDocument {
        var members: [JSONObject.Member] = []
        guard try open(closer: "}") else { return .object(JSONObject(members)) }
        repeat {
            skipSpace()
            guard current == UInt8(ascii: "\"") else { throw error("expected a string key in object") }
            let key = try parseString()
            skipSpace()
            guard current == UInt8(ascii: ":") else { throw error("expected ':' after object key") }
            position += 1
            skipSpace()
            let value = try parseValue()
            members.append(JSONObject.Member(key: key, value: value))
        } while try next(closer: "}", in: "object")
        return .object(JSONObject(members))
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONDocument {
        var items: [JSONDocument] = []
        guard try open(closer: "]") else { return .array(items) }
        repeat {
            skipSpace()
            items.append(try parseValue())
        } while try next(closer: "]", in: "array")
        return .array(items)
    }

    /// Enters an object or array at its opening bracket. False when it is
    /// empty (its closer consumed, the level left again).
    private mutating func open(closer: Unicode.Scalar) throws(JSONParseError) -> Bool {
        try enter()
        position += 1
        skipSpace()
        guard current == UInt8(ascii: closer) else { return true }
        position += 1
        depth -= 1
        return false
    }

    /// After a member or item: true at `,` (another follows), false at the
    /// closer (consumed, the level left).
    private mutating func next(closer: Unicode.Scalar, in container: String) throws(JSONParseError) -> Bool {
        skipSpace()
        switch current {
        case UInt8(ascii: ","):
            position += 1
            return true
        case UInt8(ascii: closer):
            position += 1
            depth -= 1
            return false
        case nil: throw error("unexpected end of JSON in \(container)")
        default: throw error("expected ',' or '\(closer)' in \(container)")
        }
    }

    private mutating func parseNumber() throws(JSONParseError) -> JSONNumber {
        let start = position
        func digits(_ parser: inout JSONParser) -> Int {
            let first = parser.position
            while let byte = parser.current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { parser.position += 1 }
            return parser.position - first
        }
        if current == UInt8(ascii: "-") { position += 1 }
        if current == UInt8(ascii: "0") {
            position += 1
        } else if digits(&self) == 0 {
            throw error("expected a digit in number")
        }
        if current == UInt8(ascii: ".") {
            position += 1
            guard digits(&self) > 0 else { throw error("expected a digit after '.' in number") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard digits(&self) > 0 else { throw error("expected a digit in the exponent of number") }
        }
        return JSONNumber(text: String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self))
    }

    /// At the opening quote; returns the decoded string, after the closing quote.
    private mutating func parseString() throws(JSONParseError) -> String {
        position += 1
        let start = position
        // Fast path: no escape.
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
                position += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw error("control character in string (escape it)") }
            position += 1
        }
        var decoded = Array(UnsafeBufferPointer(rebasing: bytes[start..<position]))
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                return String(decoding: decoded, as: UTF8.self)
            }
            if byte < 0x20 { throw error("control character in string (escape it)") }
            if byte != UInt8(ascii: "\\") {
                decoded.append(byte)
                position += 1
                continue
            }
            position += 1
            guard let escape = current else { break }
            position += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(escape)
            case UInt8(ascii: "b"): decoded.append(0x08)
            case UInt8(ascii: "f"): decoded.append(0x0C)
            case UInt8(ascii: "n"): decoded.append(0x0A)
            case UInt8(ascii: "r"): decoded.append(0x0D)
            case UInt8(ascii: "t"): decoded.append(0x09)
            case UInt8(ascii: "u"): appendUTF8(try parseUnicodeEscape(), to: &decoded)
            default:
                position -= 1
                throw error("invalid escape '\\\(Self.printable(escape))' in string")
            }
        }
        throw error("unterminated string")
    }

    /// After `\u`: four hex digits, and a low surrogate's `\uXXXX` after a
    /// high one. A lone surrogate becomes U+FFFD.
    private mutating func parseUnicodeEscape() throws(JSONParseError) -> UInt32 {
        let first = try parseHex4()
        if (0xD800...0xDBFF).contains(first) {
            if position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") {
                let saved = position
                position += 2
                let second = try parseHex4()
                if (0xDC00...0xDFFF).contains(second) {
                    return 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                }
                position = saved
            }
            return 0xFFFD
        }
        if (0xDC00...0xDFFF).contains(first) { return 0xFFFD }
        return first
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw error("unexpected end of JSON in \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("expected a hex digit in \\u escape")
            }
            value = value << 4 | digit
            position += 1
        }
        return value
    }

    private func appendUTF8(_ scalar: UInt32, to bytes: inout [UInt8]) {
        let unicode = Unicode.Scalar(scalar) ?? "\u{FFFD}"
        bytes.append(contentsOf: UTF8.encode(unicode)!)
    }

    private static func printable(_ byte: UInt8) -> String {
        if byte >= 0x20, byte < 0x7F { return String(UnicodeScalar(byte)) }
        let hex = String(byte, radix: 16, uppercase: true)
        return "\\x" + (hex.count == 1 ? "0" + hex : hex)
    }
}
