extension JSONDocument {
    /// How the value reads when interpolated (`{{h.json.token}}`): a string
    /// without quotes, a number as written, `true`/`false`/`null`, an
    /// object or array as compact JSON.
    package var textValue: String {
        switch self {
        case .string(let text): return text
        case .number(let number): return number.text
        case .bool(let value): return value ? "true" : "false"
        case .null: return "null"
        case .array, .object: return serialized
        }
    }

    /// Compact JSON text: no white space, keys in document order, numbers
    /// as written.
    package var serialized: String {
        jsonValue.renderedCompact()
    }

    /// The document as a value (to print, or to send on).
    package var jsonValue: JSONValue {
        switch self {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .number(let number): return .literal(number.text)
        case .string(let text): return .string(text)
        case .array(let items): return .array(items.map(\.jsonValue))
        case .object(let object): return .object(object.members.map { ($0.key, $0.value.jsonValue) })
        }
    }
}
