import PromiseEngine

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

    /// Compact JSON text: no white space, keys in document order.
    package var serialized: String {
        var output = ""
        write(to: &output)
        return output
    }

    private func write(to output: inout String) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .number(let number): output += number.text
        case .string(let text): output += Filter.jsonQuoted(text)
        case .array(let items):
            output += "["
            for (index, item) in items.enumerated() {
                if index > 0 { output += "," }
                item.write(to: &output)
            }
            output += "]"
        case .object(let object):
            output += "{"
            for (index, member) in object.members.enumerated() {
                if index > 0 { output += "," }
                output += Filter.jsonQuoted(member.key)
                output += ":"
                member.value.write(to: &output)
            }
            output += "}"
        }
    }
}
