
/// A JSON document to print, keys in the order given (reports and graphs
/// read better that way). The one JSON writer: the graph's JSON, the run
/// reports, `check --format json`, and parsed documents written back out.
package indirect enum JSONValue: Sendable {
    case string(String)
    case integer(Int)
    /// A number with this many decimals (timings: 3, microseconds: 6).
    case decimal(Double, places: Int)
    case bool(Bool)
    case null
    /// JSON text written as it is (a parsed number, as it was written).
    case literal(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    /// Pretty-printed with two-space indentation.
    package func rendered(indent: String = "") -> String {
        var text = ""
        write(into: &text, indent: indent)
        return text
    }

    /// On one line, no spaces: for data embedded in a page or a value.
    package func renderedCompact() -> String {
        var text = ""
        write(into: &text, indent: nil)
        return text
    }

    /// Writes the value; `indent` nil means compact.
    private func write(into text: inout String, indent: String?) {
        switch self {
        case .string(let value): text += JSONText.quoted(value)
        case .integer(let value): text += String(value)
        case .decimal(let value, let places): text += value.isFinite ? FixedPoint.text(value, places: places) : "null"
        case .bool(let value): text += value ? "true" : "false"
        case .null: text += "null"
        case .literal(let json): text += json
        case .array(let items):
            writeList(items.count, open: "[", close: "]", into: &text, indent: indent) { index, text, inner in
                items[index].write(into: &text, indent: inner)
            }
        case .object(let members):
            writeList(members.count, open: "{", close: "}", into: &text, indent: indent) { index, text, inner in
                text += JSONText.quoted(members[index].0) + (inner == nil ? ":" : ": ")
                members[index].1.write(into: &text, indent: inner)
            }
        }
    }

    /// The brackets and separators of an array or object: one item a line
    /// when indented, none of the white space when compact.
    private func writeList(
        _ count: Int, open: String, close: String, into text: inout String, indent: String?,
        item: (Int, inout String, String?) -> Void
    ) {
        guard count > 0 else { text += open + close; return }
        guard let indent else {
            text += open
            for index in 0..<count {
                if index > 0 { text += "," }
                item(index, &text, nil)
            }
            text += close
            return
        }
        let inner = indent + "  "
        text += open + "\n"
        for index in 0..<count {
            text += inner
            item(index, &text, inner)
            text += index == count - 1 ? "\n" : ",\n"
        }
        text += indent + close
    }
}

/// A number written with a fixed count of decimals, without Foundation.
package enum FixedPoint {
    /// `value` with exactly `places` decimals, rounded half away from zero
    /// (`text(2.25, places: 1)` is `2.3`): what `String(format: "%.Nf")`
    /// gives for the values reports hold.
    package static func text(_ value: Double, places: Int) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9e15 else { return String(value) }
        let units = Int64(scaled)
        let divisor = Int64(scale)
        let sign = value < 0 && units != 0 ? "-" : ""
        guard places > 0 else { return sign + String(units) }
        let fraction = String(units % divisor)
        return sign + String(units / divisor) + "." + String(repeating: "0", count: places - fraction.count) + fraction
    }
}
