/// The test of a JSONPath filter, `[?(@.price > 10)]`: a path from the
/// element (`@`), and a comparison with a literal, or none (`[?(@.id)]`:
/// the element has that value).
package struct JSONPathFilter: Sendable, Hashable, CustomStringConvertible {
    /// How the value at `path` is compared with the literal.
    package enum Operator: String, Sendable, Hashable, CaseIterable {
        case equal = "=="
        case notEqual = "!="
        case lessOrEqual = "<="
        case greaterOrEqual = ">="
        case less = "<"
        case greater = ">"
    }

    /// The path from the element (`@.price` is `[.key("price")]`): keys and indexes.
    package var path: [JSONPath.Component]
    /// The comparison, or nil for "the path leads to a value".
    package var comparison: (Operator, JSONDocument)?

    package init(path: [JSONPath.Component], comparison: (Operator, JSONDocument)?) {
        self.path = path
        self.comparison = comparison
    }

    package static func == (lhs: JSONPathFilter, rhs: JSONPathFilter) -> Bool {
        lhs.path == rhs.path && lhs.comparison?.0 == rhs.comparison?.0 && lhs.comparison?.1 == rhs.comparison?.1
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(path)
        hasher.combine(comparison?.0)
        hasher.combine(comparison?.1)
    }

    /// `@.price > 10`.
    package var description: String {
        let relative = JSONPath(path).description
        let subject = "@" + (relative == "." ? "" : relative)
        guard let (op, literal) = comparison else { return subject }
        return "\(subject) \(op.rawValue) \(literal.serialized)"
    }

    /// Whether `element` satisfies the filter: numbers compare by value,
    /// strings by their text; other kinds only with `==` and `!=`.
    package func holds(for element: JSONDocument) -> Bool {
        guard let value = element[JSONPath(path)] else { return false }
        guard let (op, literal) = comparison else { return true }
        let order: Int?
        switch (value, literal) {
        case (.number(let left), .number(let right)): order = JSONNumber.compare(left, right)
        case (.string(let left), .string(let right)): order = left < right ? -1 : (left == right ? 0 : 1)
        default: order = nil
        }
        switch op {
        case .equal: return order.map { $0 == 0 } ?? (value == literal)
        case .notEqual: return order.map { $0 != 0 } ?? (value != literal)
        case .less: return order.map { $0 < 0 } ?? false
        case .lessOrEqual: return order.map { $0 <= 0 } ?? false
        case .greater: return order.map { $0 > 0 } ?? false
        case .greaterOrEqual: return order.map { $0 >= 0 } ?? false
        }
    }
}

/// Parses the part of a JSONPath after its `$`: `.key`, `.*`, `[*]`,
/// `[0]`, `['key']`, `["key"]`, `..key`, `..*`, `[?(@.x == 1)]`.
struct JSONQueryParser {
    let bytes: [UInt8]
    var position: Int
    let end: Int

    private var peek: UInt8? { position < end ? bytes[position] : nil }

    private func error(_ message: String) -> JSONPath.ParseError {
        JSONPath.ParseError(message: message, offset: position)
    }

    /// The components up to the first byte that cannot continue the path.
    mutating func components() throws(JSONPath.ParseError) -> [JSONPath.Component] {
        var components: [JSONPath.Component] = []
        while let byte = peek {
            if byte == UInt8(ascii: ".") {
                position += 1
                if peek == UInt8(ascii: ".") {
                    position += 1
                    components.append(.descendants)
                    if peek == UInt8(ascii: "[") { continue }
                }
                if peek == UInt8(ascii: "*") {
                    position += 1
                    components.append(.wildcard)
                    continue
                }
                let keyStart = position
                while let next = peek, JSONPath.isPlainKeyByte(next), next != UInt8(ascii: "$") { position += 1 }
                guard position > keyStart else { throw error("expected a key or '*' after '.' in JSON path") }
                components.append(.key(String(decoding: bytes[keyStart..<position], as: UTF8.self)))
            } else if byte == UInt8(ascii: "[") {
                position += 1
                components.append(try bracket())
                guard peek == UInt8(ascii: "]") else { throw error("expected ']' in JSON path") }
                position += 1
            } else {
                break
            }
        }
        return components
    }

    /// What is inside `[...]`, the `]` not read.
    private mutating func bracket() throws(JSONPath.ParseError) -> JSONPath.Component {
        switch peek {
        case UInt8(ascii: "*"):
            position += 1
            return .wildcard
        case UInt8(ascii: "\""), UInt8(ascii: "'"):
            return .key(try JSONPath.quotedKey(bytes, at: &position, to: end))
        case UInt8(ascii: "?"):
            position += 1
            guard peek == UInt8(ascii: "(") else { throw error("expected '(' after '?' in JSON path filter") }
            position += 1
            let filter = try filterBody()
            guard peek == UInt8(ascii: ")") else { throw error("expected ')' to close the JSON path filter") }
            position += 1
            return .filter(filter)
        default:
            return .index(try integer())
        }
    }

    private mutating func integer() throws(JSONPath.ParseError) -> Int {
        let start = position
        if peek == UInt8(ascii: "-") { position += 1 }
        while let next = peek, JSONPathBytes.isDigit(next) { position += 1 }
        guard let index = Int(String(decoding: bytes[start..<position], as: UTF8.self)) else {
            position = start
            throw error("expected an index, '*', '?(...)' or a quoted key after '[' in JSON path")
        }
        return index
    }

    private mutating func skipSpaces() {
        while peek == UInt8(ascii: " ") { position += 1 }
    }

    /// `@.path OP LITERAL` or `@.path`.
    private mutating func filterBody() throws(JSONPath.ParseError) -> JSONPathFilter {
        skipSpaces()
        guard peek == UInt8(ascii: "@") else { throw error("a JSON path filter starts with '@' (the element): '[?(@.price > 10)]'") }
        position += 1
        var relative: [JSONPath.Component] = []
        while let byte = peek, byte == UInt8(ascii: ".") || byte == UInt8(ascii: "[") {
            position += 1
            if byte == UInt8(ascii: ".") {
                let keyStart = position
                while let next = peek, JSONPath.isPlainKeyByte(next), next != UInt8(ascii: "$") { position += 1 }
                guard position > keyStart else { throw error("expected a key after '@.' in JSON path filter") }
                relative.append(.key(String(decoding: bytes[keyStart..<position], as: UTF8.self)))
            } else {
                if peek == UInt8(ascii: "\"") || peek == UInt8(ascii: "'") {
                    relative.append(.key(try JSONPath.quotedKey(bytes, at: &position, to: end)))
                } else {
                    relative.append(.index(try integer()))
                }
                guard peek == UInt8(ascii: "]") else { throw error("expected ']' in JSON path filter") }
                position += 1
            }
        }
        skipSpaces()
        guard peek != UInt8(ascii: ")") else { return JSONPathFilter(path: relative, comparison: nil) }
        guard let op = JSONPathFilter.Operator.allCases.first(where: { startsWith($0.rawValue) }) else {
            throw error("expected ==, !=, <, <=, > or >= in JSON path filter")
        }
        position += op.rawValue.utf8.count
        skipSpaces()
        let literal = try literal()
        skipSpaces()
        return JSONPathFilter(path: relative, comparison: (op, literal))
    }

    private func startsWith(_ text: String) -> Bool {
        let utf8 = Array(text.utf8)
        return position + utf8.count <= end && Array(bytes[position..<(position + utf8.count)]) == utf8
    }

    /// A number, a quoted string (`'a'` or `"a"`), `true`, `false` or `null`.
    private mutating func literal() throws(JSONPath.ParseError) -> JSONDocument {
        if peek == UInt8(ascii: "'") || peek == UInt8(ascii: "\"") {
            return .string(try JSONPath.quotedKey(bytes, at: &position, to: end))
        }
        let start = position
        while let next = peek, next != UInt8(ascii: ")"), next != UInt8(ascii: " ") { position += 1 }
        let word = bytes[start..<position]
        guard !word.isEmpty, let value = try? JSONDocument.parse(Array(word)), !value.isContainer else {
            position = start
            throw error("expected a number, a quoted string, true, false or null in JSON path filter")
        }
        return value
    }
}

extension JSONDocument {
    /// An array or an object.
    var isContainer: Bool {
        switch self {
        case .array, .object: return true
        default: return false
        }
    }

    /// The values a query's components select from this one, in document order.
    func select(_ components: some Collection<JSONPath.Component>) -> [JSONDocument] {
        var values = [self]
        for component in components {
            values = values.flatMap { $0.step(component) }
        }
        return values
    }

    private func step(_ component: JSONPath.Component) -> [JSONDocument] {
        switch (component, self) {
        case (.key(let key), .object(let object)): return object[key].map { [$0] } ?? []
        case (.index(let index), .array(let items)):
            let position = index < 0 ? items.count + index : index
            return items.indices.contains(position) ? [items[position]] : []
        case (.wildcard, _): return children
        case (.descendants, _): return [self] + children.flatMap { $0.step(.descendants) }
        case (.filter(let filter), _): return children.filter { filter.holds(for: $0) }
        default: return []
        }
    }

    /// An array's elements, an object's member values; none for the rest.
    private var children: [JSONDocument] {
        switch self {
        case .array(let items): return items
        case .object(let object): return object.members.map(\.value)
        default: return []
        }
    }
}
