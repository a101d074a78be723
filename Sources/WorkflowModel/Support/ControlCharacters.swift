/// Control characters, described once: what counts as one, and how text
/// from steps and servers shows them where it leaves promise-run (the
/// console, reports, annotations) so that they are read, not obeyed: an
/// OSC that sets a terminal's title, a `\e[2J` that clears it, a BEL, a CR
/// that overwrites a line. Works on Unicode scalars: Swift's `"\r\n"` is
/// one `Character`, which neither `"\r"` nor `"\n"` matches.
package enum ControlCharacters {
    /// Whether `scalar` is a C0 control (below U+0020), DEL or a C1
    /// control (U+0080 to U+009F: U+009B acts as ESC `[` on some terminals).
    package static func contains(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// How a control character is shown: `\e` (ESC), `\r`, `\n`, `\t`,
    /// else `\x07` (C0 and DEL) or `\u{9B}` (C1).
    package static func escape(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\u{1B}": return "\\e"
        case "\r": return "\\r"
        case "\n": return "\\n"
        case "\t": return "\\t"
        default:
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return scalar.value < 0x80 ? "\\x" + (hex.count == 1 ? "0" + hex : hex) : "\\u{" + hex + "}"
        }
    }

    /// The first control character in `text`, if any.
    package static func first(in text: String) -> Unicode.Scalar? {
        text.unicodeScalars.first(where: contains)
    }
}

extension String {
    /// The text with every control character shown escaped
    /// (`ControlCharacters.escape`). With `keepingLines`, a tab stays a tab
    /// and a line break (LF, or CR LF) stays a line break, written as one
    /// LF; a lone CR is escaped (it would overwrite the line). Without,
    /// the text is one line: breaks and tabs are escaped too.
    package func escapingControlCharacters(keepingLines: Bool) -> String {
        // Most text has none: no copy.
        guard unicodeScalars.contains(where: ControlCharacters.contains) else { return self }
        var result = ""
        result.reserveCapacity(utf8.count + 8)
        let scalars = Array(unicodeScalars)
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            guard ControlCharacters.contains(scalar) else {
                result.unicodeScalars.append(scalar)
                continue
            }
            if keepingLines {
                if scalar == "\t" || scalar == "\n" {
                    result.unicodeScalars.append(scalar)
                    continue
                }
                if scalar == "\r", index < scalars.count, scalars[index] == "\n" {
                    result.unicodeScalars.append("\n")
                    index += 1
                    continue
                }
            }
            result += ControlCharacters.escape(scalar)
        }
        return result
    }
}
