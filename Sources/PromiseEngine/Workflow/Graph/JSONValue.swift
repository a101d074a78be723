import PromiseEngine

/// A JSON document to print (no Foundation): the JSON renderer builds one.
enum JSONValue {
    case string(String)
    case integer(Int)
    case number(Double)
    case boolean(Bool)
    case null
    case array([JSONValue])
    /// Keys in the order given.
    case object([(String, JSONValue)])

    /// Pretty-printed with two-space indentation.
    func serialized(indent: String = "") -> String {
        var output = ""
        write(to: &output, indent: indent)
        return output
    }

    func write(to output: inout String, indent: String) {
        switch self {
        case .string(let text): output += Filter.jsonQuoted(text)
        case .integer(let value): output += String(value)
        case .number(let value): output += value.isFinite ? String(value) : "null"
        case .boolean(let value): output += value ? "true" : "false"
        case .null: output += "null"
        case .array(let items):
            guard !items.isEmpty else { output += "[]"; return }
            output += "[\n"
            for (index, item) in items.enumerated() {
                output += indent + "  "
                item.write(to: &output, indent: indent + "  ")
                output += index == items.count - 1 ? "\n" : ",\n"
            }
            output += indent + "]"
        case .object(let members):
            guard !members.isEmpty else { output += "{}"; return }
            output += "{\n"
            for (index, (key, value)) in members.enumerated() {
                output += indent + "  " + Filter.jsonQuoted(key) + ": "
                value.write(to: &output, indent: indent + "  ")
                output += index == members.count - 1 ? "\n" : ",\n"
            }
            output += indent + "}"
        }
    }
}
