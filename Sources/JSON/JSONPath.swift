/// A path into a JSON value: `.` (the whole value), `.key`, `.key.sub`,
/// `[0]`, `[-1]` (the last element), `["odd key"]`; or, written from `$`,
/// JSONPath with wildcards, filters and recursive descent (`$.items[*].id`,
/// `$.items[?(@.price > 10)]`, `$..id`), which gives a list.
@usableFromInline
package struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    /// One step of a path.
    package enum Component: Sendable, Hashable {
        case key(String)
        case index(Int)
        /// `[*]` or `.*`: every element of an array, every member of an object.
        case wildcard
        /// `..`: the value and all it holds, at any depth; the next
        /// component applies to each.
        case descendants
        /// `[?(@.price > 10)]`: the elements (or members) that satisfy it.
        case filter(JSONPathFilter)
    }

    /// Empty for the whole value.
    package var components: [Component]
    /// Written from `$` (JSONPath): gives every value it selects, as a list.
    package var isQuery: Bool

    package init(_ components: [Component], isQuery: Bool = false) {
        self.components = components
        self.isQuery = isQuery
    }

    /// Holds a wildcard, a filter or `..`: gives a list of what it selects.
    package var selectsMany: Bool {
        components.contains { component in
            switch component {
            case .key, .index: return false
            case .wildcard, .descendants, .filter: return true
            }
        }
    }

    /// The path as it would be written: `.items[0]["odd key"]`.
    @usableFromInline
    package var description: String {
        if components.isEmpty { return isQuery ? "$" : "." }
        var text = isQuery ? "$" : ""
        for (offset, component) in components.enumerated() {
            switch component {
            case .key(let key):
                if !key.isEmpty, key.utf8.allSatisfy(JSONPath.isPlainKeyByte) {
                    text += (offset > 0 && components[offset - 1] == .descendants ? "" : ".") + key
                } else {
                    // The parser takes `\x` as `x`: escape the two that matter.
                    var quoted = ""
                    for character in key {
                        if character == "\\" || character == "\"" { quoted.append("\\") }
                        quoted.append(character)
                    }
                    text += "[\"" + quoted + "\"]"
                }
            case .index(let index):
                text += "[\(index)]"
            case .wildcard:
                text += "[*]"
            case .descendants:
                text += ".."
            case .filter(let filter):
                text += "[?(\(filter))]"
            }
        }
        return text
    }

    /// A byte of a key written after `.`: letters, digits, `_`, `-`, `$`,
    /// and any byte of a character beyond ASCII (`.args.ü`, `.名前`): a
    /// JSON object's keys are any text.
    package static func isPlainKeyByte(_ byte: UInt8) -> Bool {
        JSONPathBytes.isNameByte(byte) || byte == UInt8(ascii: "$") || byte >= 0x80
    }

    /// A parse error: a message and the byte offset it is at.
    package struct ParseError: Error {
        package var message: String
        package var offset: Int

        package init(message: String, offset: Int) {
            self.message = message
            self.offset = offset
        }
    }

    /// Parses a path from `bytes[start...]`, stopping at `end` or at the
    /// first byte that cannot continue the path (a space, `|`, `}`...).
    /// Returns the path and the offset after it.
    package static func parse(_ bytes: [UInt8], from start: Int, to end: Int) throws(ParseError) -> (JSONPath, Int) {
        if start < end, bytes[start] == UInt8(ascii: "$") {
            var query = JSONQueryParser(bytes: bytes, position: start + 1, end: end)
            let components = try query.components()
            return (JSONPath(components, isQuery: true), query.position)
        }
        var position = start
        var components: [Component] = []
        guard position < end else { throw ParseError(message: "empty JSON path; write '.' for the whole value", offset: start) }
        guard bytes[position] == UInt8(ascii: ".") || bytes[position] == UInt8(ascii: "[") else {
            throw ParseError(message: "a JSON path starts with '.', '[' or '$'", offset: position)
        }
        // "." alone: the whole value.
        if bytes[position] == UInt8(ascii: "."),
            position + 1 >= end || !(isPlainKeyByte(bytes[position + 1]) || bytes[position + 1] == UInt8(ascii: "["))
        {
            return (JSONPath([]), position + 1)
        }
        while position < end {
            let byte = bytes[position]
            if byte == UInt8(ascii: ".") {
                position += 1
                let keyStart = position
                while position < end, isPlainKeyByte(bytes[position]) { position += 1 }
                if position == keyStart {
                    if position < end, bytes[position] == UInt8(ascii: "[") { continue }
                    throw ParseError(message: "expected a key after '.' in JSON path", offset: keyStart - 1)
                }
                components.append(.key(String(decoding: bytes[keyStart..<position], as: UTF8.self)))
            } else if byte == UInt8(ascii: "[") {
                position += 1
                if position < end, bytes[position] == UInt8(ascii: "\"") {
                    components.append(.key(try quotedKey(bytes, at: &position, to: end)))
                } else {
                    let numberStart = position
                    if position < end, bytes[position] == UInt8(ascii: "-") { position += 1 }
                    while position < end, JSONPathBytes.isDigit(bytes[position]) { position += 1 }
                    let text = String(decoding: bytes[numberStart..<position], as: UTF8.self)
                    guard let index = Int(text) else {
                        throw ParseError(message: "expected an index or a quoted key after '[' in JSON path", offset: numberStart)
                    }
                    components.append(.index(index))
                }
                guard position < end, bytes[position] == UInt8(ascii: "]") else {
                    throw ParseError(message: "expected ']' in JSON path", offset: position)
                }
                position += 1
            } else {
                break
            }
        }
        return (JSONPath(components), position)
    }
}

extension JSONPath {
    /// A quoted key from `bytes[position]` (its opening `"` or `'`) to
    /// after its closing quote; `\x` is `x`.
    static func quotedKey(_ bytes: [UInt8], at position: inout Int, to end: Int) throws(ParseError) -> String {
        let quote = bytes[position]
        position += 1
        var key: [UInt8] = []
        while position < end {
            let next = bytes[position]
            if next == UInt8(ascii: "\\"), position + 1 < end {
                key.append(bytes[position + 1])
                position += 2
            } else if next == quote {
                position += 1
                return String(decoding: key, as: UTF8.self)
            } else {
                key.append(next)
                position += 1
            }
        }
        throw ParseError(message: "unterminated key in JSON path; expected '\(Character(Unicode.Scalar(quote)))'", offset: position)
    }
}

/// The bytes of a JSON path's names and indexes (ASCII letters, digits,
/// `_` and `-`).
enum JSONPathBytes {
    static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    static func isNameByte(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F || isDigit(byte) || byte == 0x2D
    }
}
