import PromiseEngine

/// Expectations and captures written back as in a workflow file.
package enum ExpectationText {
    package static func describe<Text>(_ expectation: StepModel<Text>.StepExpectation) -> String {
        switch expectation {
        case .status(let patterns): return "status " + patterns.map(\.description).joined(separator: " ")
        case .exit(let codes): return "exit " + codes.map(String.init).joined(separator: " ")
        case .sha256(let hex, let negated): return "sha256 \(negated ? "!=" : "==") \(quoted(hex))"
        case .bytes(let op, let count): return "bytes count \(op.rawValue) \(count)"
        case .text(let stream, let predicate): return "\(stream.rawValue) " + describe(predicate)
        case .header(let name, let check):
            switch check {
            case .text(let predicate): return "header \(quoted(name)) " + describe(predicate)
            case .count(let op, let count): return "header \(quoted(name)) count \(op.rawValue) \(count)"
            case .exists(let negated): return "header \(quoted(name)) \(negated ? "not exists" : "exists")"
            }
        case .json(let path, let check):
            let subject = "json \(quoted(path.description)) "
            switch check {
            case .exists(let negated): return subject + (negated ? "not exists" : "exists")
            case .compare(let comparison, let value): return subject + "\(comparison.rawValue) \(value)"
            case .count(let op, let count): return subject + "count \(op.rawValue) \(count)"
            case .contains(let text, let negated): return subject + (negated ? "not " : "") + "contains \"\(text.sourceText)\""
            case .matches(let pattern, let negated): return subject + (negated ? "not " : "") + "matches \(regex(pattern))"
            case .isType(let type, let negated): return subject + (negated ? "is not " : "is ") + type.rawValue
            case .predicate(let predicate, let negated): return subject + (negated ? "not " : "") + predicate.rawValue
            }
        }
    }

    /// `== "x"`, `!= "x"`, `not contains "x"`, `matches 'x'`.
    package static func describe<Text>(_ predicate: StepModel<Text>.TextPredicate) -> String {
        switch predicate.test {
        case .equals(let text): return (predicate.negated ? "!= " : "== ") + "\"\(text.sourceText)\""
        case .contains(let text): return (predicate.negated ? "not " : "") + "contains \"\(text.sourceText)\""
        case .startsWith(let text): return (predicate.negated ? "not " : "") + "startsWith \"\(text.sourceText)\""
        case .endsWith(let text): return (predicate.negated ? "not " : "") + "endsWith \"\(text.sourceText)\""
        case .matches(let pattern): return (predicate.negated ? "not " : "") + "matches \(regex(pattern))"
        }
    }

    package static func describe(_ capture: Capture) -> String {
        switch capture.source {
        case .json(let path): return "\(capture.name) = json \(quoted(path.description))"
        case .header(let name): return "\(capture.name) = header \(quoted(name))"
        case .matches(let stream, let pattern): return "\(capture.name) = \(stream.rawValue) matches \(regex(pattern))"
        case .headerMatches(let name, let pattern): return "\(capture.name) = header \(quoted(name)) matches \(regex(pattern))"
        case .cookie(let name): return "\(capture.name) = cookie \(quoted(name))"
        case .url: return "\(capture.name) = url"
        }
    }

    /// Text in a `"..."` string, escaped.
    package static func quoted(_ text: String) -> String {
        "\"" + text.escapedForTemplate() + "\""
    }

    /// A regex in a raw string when it has no `'`, else escaped.
    package static func regex(_ pattern: RegexPattern) -> String {
        pattern.source.contains("'") || pattern.source.contains(where: \.isNewline)
            ? "\"" + pattern.source.escapedForTemplate() + "\""
            : "'" + pattern.source + "'"
    }
}
