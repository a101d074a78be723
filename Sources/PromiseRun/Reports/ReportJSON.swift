import PromiseEngine
import WorkflowEngine

/// A JSON value with keys in the order written: reports read better that way.
indirect enum ReportJSON {
    case string(String)
    case number(Double)
    /// A number with this many decimals (timings: microseconds).
    case decimal(Double, places: Int)
    case integer(Int)
    case bool(Bool)
    case null
    case array([ReportJSON])
    case object([(String, ReportJSON)])

    /// On one line, no spaces: for data embedded in a page.
    func renderedCompact() -> String {
        var text = ""
        writeCompact(into: &text)
        return text
    }

    private func writeCompact(into text: inout String) {
        switch self {
        case .array(let items):
            text += "["
            for (index, item) in items.enumerated() {
                if index > 0 { text += "," }
                item.writeCompact(into: &text)
            }
            text += "]"
        case .object(let members):
            text += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { text += "," }
                text += Self.quoted(key) + ":"
                value.writeCompact(into: &text)
            }
            text += "}"
        default:
            write(into: &text, indent: "")
        }
    }

    func rendered(indent: String = "") -> String {
        var text = ""
        write(into: &text, indent: indent)
        return text
    }

    private func write(into text: inout String, indent: String) {
        switch self {
        case .string(let value): text += Self.quoted(value)
        case .number(let value): text += value.isFinite ? Format.fixed(value, 3) : "null"
        case .decimal(let value, let places): text += value.isFinite ? Format.fixed(value, places) : "null"
        case .integer(let value): text += String(value)
        case .bool(let value): text += value ? "true" : "false"
        case .null: text += "null"
        case .array(let items):
            guard !items.isEmpty else { text += "[]"; return }
            text += "[\n"
            for (index, item) in items.enumerated() {
                text += indent + "  "
                item.write(into: &text, indent: indent + "  ")
                text += index == items.count - 1 ? "\n" : ",\n"
            }
            text += indent + "]"
        case .object(let members):
            guard !members.isEmpty else { text += "{}"; return }
            text += "{\n"
            for (index, (key, value)) in members.enumerated() {
                text += indent + "  " + Self.quoted(key) + ": "
                value.write(into: &text, indent: indent + "  ")
                text += index == members.count - 1 ? "\n" : ",\n"
            }
            text += indent + "}"
        }
    }

    static func quoted(_ value: String) -> String {
        Filter.jsonQuoted(value)
    }
}

