/// The one writer of JSON strings.
package enum JSONText {
    /// A JSON string literal, quotes included: control characters, quotes
    /// and backslashes escaped, scalar by scalar.
    package static func quoted(_ value: String) -> String {
        let escaped = value.replacingScalars { scalar in
            switch scalar {
            case "\"": return "\\\""
            case "\\": return "\\\\"
            case "\n": return "\\n"
            case "\r": return "\\r"
            case "\t": return "\\t"
            case "\u{08}": return "\\b"
            case "\u{0C}": return "\\f"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: return nil
            }
        }
        return "\"" + escaped + "\""
    }
}
