import PromiseEngine

/// `.env` files: `NAME=VALUE` lines; blank lines and `#`
/// comments ignored; an `export ` prefix allowed; values unquoted (cut at
/// ` #`, spaces trimmed), in single quotes (as written), or in double quotes
/// (`\n`, `\t`, `\r`, `\"`, `\\` escapes); no interpolation. An error
/// says where (`path:line:col`) and what is wrong, never the line's text
/// (a `.env` file holds secrets).
/// See docs/language.md, 'Targets, desc, allow-failure, dotenv'.
package enum Dotenv {
    /// A line that is not `NAME=VALUE`: where, and what to write instead.
    package struct ParseError: Error, Sendable, CustomStringConvertible {
        /// The file as named.
        package var path: String
        /// 1-based.
        package var line: Int
        /// 1-based, in bytes.
        package var column: Int
        /// What is wrong and what to write.
        package var message: String

        /// `path:line:col: message`.
        package var description: String { "\(path):\(line):\(column): \(message)" }
    }

    /// The pairs of `text`, in order (a later name wins when applied).
    package static func parse(_ text: String, path: String) throws(ParseError) -> [(name: String, value: String)] {
        var pairs: [(name: String, value: String)] = []
        var number = 0
        for rawLine in lines(of: text) {
            number += 1
            var line = rawLine
            let indent = line.prefix { $0 == " " || $0 == "\t" }.count
            line = line.dropFirst(indent)
            if line.isEmpty || line.hasPrefix("#") { continue }
            var column = indent + 1
            if line.hasPrefix("export ") {
                let before = line.count
                line = line.dropFirst(7).drop { $0 == " " }
                column += before - line.count
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw ParseError(
                    path: path, line: number, column: column,
                    message: "expected NAME=VALUE, but the line has no '='; comment a line out with '#'")
            }
            let name = line[..<equals].trimmingTrailingSpaces()
            guard let first = name.first, first == "_" || first.isASCII && first.isLetter,
                name.allSatisfy({ $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) })
            else {
                throw ParseError(
                    path: path, line: number, column: column,
                    message: "the text before '=' cannot be a variable name: letters, digits and _ only, not starting with a digit")
            }
            let valueColumn = column + line.distance(from: line.startIndex, to: equals) + 1
            let value = try parseValue(line[line.index(after: equals)...], path: path, line: number, column: valueColumn)
            pairs.append((String(name), value))
        }
        return pairs
    }

    /// The lines of `text`, broken at LF, CRLF or a lone CR, each one break
    /// (as in a workflow file): a `.env` saved on Windows reads as on Linux.
    package static func lines(of text: String) -> [Substring] {
        // "\r\n" is one Character.
        withoutByteOrderMark(text).split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }
    }

    /// A file's text without the UTF-8 byte order mark some editors
    /// (Notepad) put first: it is no part of the first line's name or value.
    package static func withoutByteOrderMark(_ text: String) -> Substring {
        text.hasPrefix("\u{FEFF}") ? text.dropFirst() : Substring(text)
    }

    private static func parseValue(_ raw: Substring, path: String, line: Int, column: Int) throws(ParseError) -> String {
        let text = raw.drop { $0 == " " || $0 == "\t" }
        guard let quote = text.first, quote == "\"" || quote == "'" else {
            // Unquoted: up to a ` #` comment, spaces trimmed.
            var value = text
            if let hash = value.firstRange(of: " #") { value = value[..<hash.lowerBound] }
            return String(value.trimmingTrailingSpaces())
        }
        var value = ""
        var index = text.index(after: text.startIndex)
        var closed = false
        while index < text.endIndex {
            let character = text[index]
            if character == quote {
                closed = true
                index = text.index(after: index)
                break
            }
            if quote == "\"", character == "\\", text.index(after: index) < text.endIndex {
                index = text.index(after: index)
                switch text[index] {
                case "n": value.append("\n")
                case "t": value.append("\t")
                case "r": value.append("\r")
                default: value.append(text[index])
                }
            } else {
                value.append(character)
            }
            index = text.index(after: index)
        }
        guard closed else {
            throw ParseError(path: path, line: line, column: column, message: "the value's \(quote) is never closed on this line")
        }
        let rest = text[index...].drop { $0 == " " || $0 == "\t" }
        guard rest.isEmpty || rest.hasPrefix("#") else {
            throw ParseError(
                path: path, line: line, column: column,
                message: "unexpected text after the quoted value; quote the whole value")
        }
        return value
    }
}

extension Substring {
    fileprivate func trimmingTrailingSpaces() -> Substring {
        var text = self
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
