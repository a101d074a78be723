/// A parsed JSON value (RFC 8259), for `expect json`, `capture = json` and
/// `{{label.json.PATH}}`. Objects keep their members in document order;
/// numbers keep their text, so they print as written.
package enum JSONDocument: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONDocument])
    case object(JSONObject)

    /// `null`, `boolean`, `number`, `string`, `array` or `object`: for messages.
    package var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}

/// A JSON number as written in the document.
package struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// The number's text, e.g. `-1.5e3`.
    package let text: String

    /// `text` must follow JSON's number grammar (the parser checks it).
    package init(text: String) {
        self.text = text
    }

    package init(_ value: Int) {
        text = String(value)
    }

    /// The value as a Double (large exponents give ±infinity).
    package var doubleValue: Double { Double(text) ?? .nan }

    /// The value as an Int, when it is written without fraction or
    /// exponent and fits.
    package var integerValue: Int? {
        guard !text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) else {
            return nil
        }
        return Int(text)
    }

    package var description: String { text }

    /// An integer's sign and digits without leading zeros, when the text
    /// is an integer (no fraction, no exponent); `-0` is `0`.
    package var integerDigits: (negative: Bool, digits: String)? {
        var body = Substring(text)
        let negative = body.hasPrefix("-")
        if negative { body = body.dropFirst() }
        guard !body.isEmpty, body.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        let digits = String(body.drop { $0 == "0" })
        return (negative && !digits.isEmpty, digits.isEmpty ? "0" : digits)
    }

    /// Compares two numbers by value: exactly when both are integers that
    /// fit in an Int, as Doubles otherwise.
    package static func compare(_ lhs: JSONNumber, _ rhs: JSONNumber) -> Int {
        if let left = lhs.integerValue, let right = rhs.integerValue {
            return left < right ? -1 : (left == right ? 0 : 1)
        }
        // Integers of any size compare exactly, by their digits.
        if let left = lhs.integerDigits, let right = rhs.integerDigits {
            if left.negative != right.negative { return left.negative ? -1 : 1 }
            let magnitude =
                left.digits.count != right.digits.count
                ? (left.digits.count < right.digits.count ? -1 : 1)
                : (left.digits < right.digits ? -1 : (left.digits == right.digits ? 0 : 1))
            return left.negative ? -magnitude : magnitude
        }
        let left = lhs.doubleValue
        let right = rhs.doubleValue
        return left < right ? -1 : (left == right ? 0 : 1)
    }
}

/// A JSON object's members, in document order. A key may appear twice in
/// a document; lookups take the last one, as JavaScript does.
package struct JSONObject: Sendable, Hashable {
    package struct Member: Sendable, Hashable {
        package var key: String
        package var value: JSONDocument

        package init(key: String, value: JSONDocument) {
            self.key = key
            self.value = value
        }
    }

    package var members: [Member]

    package init(_ members: [Member] = []) {
        self.members = members
    }

    package subscript(key: String) -> JSONDocument? {
        members.last { $0.key == key }?.value
    }

    package var keys: [String] { members.map(\.key) }
}
