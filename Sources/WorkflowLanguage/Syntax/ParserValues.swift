import JSON
import PromiseEngine
import WorkflowModel

// Values in statements: durations, integers, strings, regular expressions
// and JSON paths.

extension Parser {
    /// A string token as a template.
    mutating func parseTemplate(_ what: String, literal: Bool = false) throws(ParseFailure) -> Template {
        guard current.kind.isString else {
            throw error("expected a string \(what), found \(found)")
        }
        if !literal, current.kind == .rawString, let name = Self.interpolationInRaw(text(current)) {
            rawInterpolations.append((name, current.range))
        }
        let template = TemplateParser(bytes: bytes).parse(current, &diagnostics)
        advance()
        return template
    }

    /// The first `{{name}}` or `{{name.field}}` in raw text: what looks
    /// like an interpolation (not `{{.Id}}` or `{{ }}`).
    static func interpolationInRaw(_ text: String) -> String? {
        guard let open = text.firstRange(of: "{{"), let close = text[open.upperBound...].firstRange(of: "}}") else {
            return nil
        }
        let inside = text[open.upperBound..<close.lowerBound].trimmingSpaces()
        guard let first = inside.first, first.isLetter,
            inside.allSatisfy({ $0.isLetter || $0.isNumber || "._-[]".contains($0) })
        else { return nil }
        return String(inside)
    }

    /// A string that must not interpolate (names, regexes, JSON paths).
    mutating func parseLiteralString(_ what: String) throws(ParseFailure) -> String {
        let token = current
        let template = try parseTemplate("for \(what)", literal: true)
        guard let text = template.literalValue else {
            throw error("\(what) cannot use '{{ }}'; it must be known before anything runs", at: token.range)
        }
        return text
    }

    /// A string or a bare word (for header names).
    mutating func parseName(_ what: String) throws(ParseFailure) -> String {
        if current.kind == .identifier {
            let name = text(current)
            advance()
            return name
        }
        return try parseLiteralString(what)
    }

    /// A header, query or form name: a word, or a string that may
    /// interpolate. A header name known now must be an RFC 9110 token.
    mutating func parseNameTemplate(_ what: String, header: Bool) throws(ParseFailure) -> Template {
        let range = current.range
        let name: Template
        if current.kind == .identifier {
            name = .literal(text(current))
            advance()
        } else {
            name = try parseTemplate("as \(what)")
        }
        if header, let literal = name.literalValue, !Parser.isToken(literal) {
            throw error("'\(literal)' cannot be a header name: letters, digits and !#$%&'*+-.^_`|~ only", at: range)
        }
        return name
    }

    /// An RFC 9110 token (a header name).
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    return true
                default:
                    return "!#$%&'*+-.^_`|~".utf8.contains(byte)
                }
            }
    }

    /// A regular expression in a string, checked with the standard
    /// library's `Regex`.
    mutating func parseRegex() throws(ParseFailure) -> RegexPattern {
        let token = current
        let source = try parseLiteralString("a regular expression")
        do {
            _ = try Regex(source)
        } catch {
            let reason = String(describing: error).split(separator: "\n").first.map(String.init) ?? "not valid"
            throw self.error("invalid regular expression: \(reason)", at: token.range)
        }
        return RegexPattern(source)
    }

    /// A JSON path in a string: `".items[0].id"`.
    mutating func parseJSONPath() throws(ParseFailure) -> JSONPath {
        let token = current
        let source = try parseLiteralString("a JSON path")
        let pathBytes = Array(source.utf8)
        do throws(JSONPath.ParseError) {
            let (path, end) = try JSONPath.parse(pathBytes, from: 0, to: pathBytes.count)
            guard end == pathBytes.count else {
                throw JSONPath.ParseError(message: "unexpected '\(String(decoding: pathBytes[end...end], as: UTF8.self))' in JSON path", offset: end)
            }
            return path
        } catch {
            // Point inside the string when its bytes are the path's bytes.
            let content = bytes[(token.start + 1)..<max(token.start + 1, token.end - 1)]
            let exact = token.kind != .multilineString && !content.contains(UInt8(ascii: "\\")) && content.count == pathBytes.count
            let range =
                exact
                ? SourceRange(start: token.start + 1 + error.offset, end: token.start + 1 + min(error.offset + 1, pathBytes.count))
                : token.range
            throw self.error(
                "invalid JSON path: \(error.message)", at: range,
                notes: [
                    .init(
                        "JSON paths look like '.key', '.key.sub', '[0]', '[\"odd key\"]'; '.' is the whole value; from '$': '$.items[*].id', '$..id', '$.items[?(@.price > 10)]'"
                    )
                ])
        }
    }

    /// An integer within `range`.
    mutating func parseInteger(_ what: String, range: ClosedRange<Int>) throws(ParseFailure) -> Int {
        guard current.kind == .number else {
            throw error("expected \(what) (an integer), found \(found)")
        }
        let word = text(current)
        guard let value = Int(word) else {
            throw error("expected \(what) (an integer), found '\(word)'")
        }
        guard range.contains(value) else {
            throw error("\(what) must be from \(range.lowerBound) to \(range.upperBound), not \(value)")
        }
        advance()
        return value
    }

    /// A duration: `250ms`, `30s`, `5m`, `1h`, `1m30s`.
    mutating func parseDuration() throws(ParseFailure) -> Duration {
        guard current.kind == .number else {
            throw error("expected a duration (such as 30s, 5m, 1m30s), found \(found)")
        }
        let word = text(current)
        guard let duration = Parser.duration(word) else {
            let hint = Int(word) != nil ? "missing unit in duration '\(word)'" : "invalid duration '\(word)'"
            throw error("\(hint); write a number with a unit: 250ms, 30s, 5m, 1h, 1m30s")
        }
        advance()
        return duration
    }

    /// Parses `(\d+(ms|s|m|h))+`; nil when malformed or absurdly long.
    static func duration(_ word: String) -> Duration? {
        DurationText.parse(word)
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> Substring {
        var text = self
        while text.first == " " { text = text.dropFirst() }
        while text.last == " " { text = text.dropLast() }
        return text
    }
}
