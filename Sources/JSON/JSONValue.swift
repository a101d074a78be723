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
        var bytes: [UInt8] = []
        write(into: &bytes, indent: Array(indent.utf8))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// On one line, no spaces: for data embedded in a page or a value.
    package func renderedCompact() -> String {
        var bytes: [UInt8] = []
        write(into: &bytes, indent: nil)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the value on one line, no spaces (`JSONLine` nests values so).
    package func appendCompact(to bytes: inout [UInt8]) {
        write(into: &bytes, indent: nil)
    }

    /// Writes the value; `indent` nil means compact.
    private func write(into bytes: inout [UInt8], indent: [UInt8]?) {
        switch self {
        case .string(let value): JSONText.appendQuoted(value, to: &bytes)
        case .integer(let value): JSONText.appendInteger(value, to: &bytes)
        case .decimal(let value, let places):
            if value.isFinite { JSONText.appendDecimal(value, places: places, to: &bytes) } else { bytes.append(contentsOf: "null".utf8) }
        case .bool(let value): bytes.append(contentsOf: (value ? "true" : "false").utf8)
        case .null: bytes.append(contentsOf: "null".utf8)
        case .literal(let json): bytes.append(contentsOf: json.utf8)
        case .array(let items):
            writeList(items.count, open: UInt8(ascii: "["), close: UInt8(ascii: "]"), into: &bytes, indent: indent) { index, bytes, inner in
                items[index].write(into: &bytes, indent: inner)
            }
        case .object(let members):
            writeList(members.count, open: UInt8(ascii: "{"), close: UInt8(ascii: "}"), into: &bytes, indent: indent) { index, bytes, inner in
                JSONText.appendQuoted(members[index].0, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                if inner != nil { bytes.append(UInt8(ascii: " ")) }
                members[index].1.write(into: &bytes, indent: inner)
            }
        }
    }

    /// The brackets and separators of an array or object: one item a line
    /// when indented, none of the white space when compact.
    private func writeList(
        _ count: Int, open: UInt8, close: UInt8, into bytes: inout [UInt8], indent: [UInt8]?,
        item: (Int, inout [UInt8], [UInt8]?) -> Void
    ) {
        bytes.append(open)
        guard count > 0 else {
            bytes.append(close)
            return
        }
        guard let indent else {
            for index in 0..<count {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                item(index, &bytes, nil)
            }
            bytes.append(close)
            return
        }
        let inner = indent + [UInt8(ascii: " "), UInt8(ascii: " ")]
        bytes.append(UInt8(ascii: "\n"))
        for index in 0..<count {
            bytes.append(contentsOf: inner)
            item(index, &bytes, inner)
            if index < count - 1 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(UInt8(ascii: "\n"))
        }
        bytes.append(contentsOf: indent)
        bytes.append(close)
    }
}

/// A number written with a fixed count of decimals, without Foundation.
package enum FixedPoint {
    /// `value` with exactly `places` decimals, rounded half away from zero
    /// (`text(2.25, places: 1)` is `2.3`): what `String(format: "%.Nf")`
    /// gives for the values reports hold.
    package static func text(_ value: Double, places: Int) -> String {
        var bytes: [UInt8] = []
        JSONText.appendDecimal(value, places: places, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
