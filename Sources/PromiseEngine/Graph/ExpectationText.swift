/// Expectations and captures written back as in a workflow file.
public enum ExpectationText {
    public static func describe(_ expectation: StepExpectation) -> String {
        switch expectation {
        case .status(let patterns): return "status " + patterns.map(\.description).joined(separator: " ")
        case .exit(let codes): return "exit " + codes.map(String.init).joined(separator: " ")
        case .contains(let stream, let text): return "\(stream.rawValue) contains \"\(text.sourceText)\""
        case .matches(let stream, let pattern): return "\(stream.rawValue) matches \(regex(pattern))"
        case .header(let name, .contains(let text)): return "header \(quoted(name)) contains \"\(text.sourceText)\""
        case .header(let name, .matches(let pattern)): return "header \(quoted(name)) matches \(regex(pattern))"
        case .json(let path, .exists): return "json \(quoted(path.description)) exists"
        case .json(let path, .compare(let comparison, let value)): return "json \(quoted(path.description)) \(comparison.rawValue) \(value)"
        }
    }

    public static func describe(_ capture: Capture) -> String {
        switch capture.source {
        case .json(let path): return "\(capture.name) = json \(quoted(path.description))"
        case .header(let name): return "\(capture.name) = header \(quoted(name))"
        case .matches(let stream, let pattern): return "\(capture.name) = \(stream.rawValue) matches \(regex(pattern))"
        }
    }

    /// Text in a `"..."` string, escaped.
    static func quoted(_ text: String) -> String {
        "\"" + text.escapedForTemplate() + "\""
    }

    /// A regex in a raw string when it has no `'`, else escaped.
    static func regex(_ pattern: RegexPattern) -> String {
        pattern.source.contains("'") || pattern.source.contains("\n")
            ? "\"" + pattern.source.escapedForTemplate() + "\""
            : "'" + pattern.source + "'"
    }
}
