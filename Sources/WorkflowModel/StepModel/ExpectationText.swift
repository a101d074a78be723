import JSON
import PromiseEngine

/// Expectations and captures written back as in a workflow file.
package enum ExpectationText {
    package static func describe<Text>(_ expectation: StepModel<Text>.StepExpectation) -> String {
        switch expectation {
        case .status(let patterns): return "status " + patterns.map(\.description).joined(separator: " ")
        case .exit(let codes): return "exit " + codes.map(String.init).joined(separator: " ")
        case .sha256(let hex, let negated): return "sha256 \(negated ? "!=" : "==") \(quoted(hex))"
        case .bytes(let op, let count): return "bytes count \(op.rawValue) \(count)"
        case .md5(let hex, let negated): return "md5 \(negated ? "!=" : "==") \(quoted(hex))"
        case .duration(let op, let duration): return "duration \(op.rawValue) \(DurationText.format(duration))"
        case .text(let stream, let predicate): return "\(stream.rawValue) " + describe(predicate)
        case .header(let name, let check):
            switch check {
            case .text(let predicate): return "header \(quoted(name)) " + describe(predicate)
            case .count(let op, let count): return "header \(quoted(name)) count \(op.rawValue) \(count)"
            case .exists(let negated): return "header \(quoted(name)) \(negated ? "not exists" : "exists")"
            }
        case .json(let path, let check):
            return "json \(quoted(path.description)) " + describe(check)
        case .value(let subject, let filters, let check):
            return subject.sourceText + FilterCall.sourceText(filters) + " " + describe(check)
        }
    }

    /// `== 3`, `count > 1`, `not isUuid`: the check after a JSON value.
    package static func describe<Text>(_ check: StepModel<Text>.JSONCheck) -> String {
        switch check {
        case .exists(let negated): return negated ? "not exists" : "exists"
        case .compare(let comparison, let value): return "\(comparison.rawValue) \(value)"
        case .count(let op, let count): return "count \(op.rawValue) \(count)"
        case .contains(let text, let negated): return (negated ? "not " : "") + "contains \"\(text.sourceText)\""
        case .matches(let pattern, let negated): return (negated ? "not " : "") + "matches \(regex(pattern))"
        case .isType(let type, let negated): return (negated ? "is not " : "is ") + type.rawValue
        case .predicate(let predicate, let negated): return (negated ? "not " : "") + predicate.rawValue
        case .startsWith(let text, let negated): return (negated ? "not " : "") + "startsWith \"\(text.sourceText)\""
        case .endsWith(let text, let negated): return (negated ? "not " : "") + "endsWith \"\(text.sourceText)\""
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
        describeSource(capture) + FilterCall.sourceText(capture.filters)
    }

    private static func describeSource(_ capture: Capture) -> String {
        switch capture.source {
        case .json(let path): return "\(capture.name) = json \(quoted(path.description))"
        case .header(let name): return "\(capture.name) = header \(quoted(name))"
        case .matches(let stream, let pattern): return "\(capture.name) = \(stream.rawValue) matches \(regex(pattern))"
        case .headerMatches(let name, let pattern): return "\(capture.name) = header \(quoted(name)) matches \(regex(pattern))"
        case .cookie(let name): return "\(capture.name) = cookie \(quoted(name))"
        case .url: return "\(capture.name) = url"
        case .xpath(let expression): return "\(capture.name) = xpath \(quoted(expression))"
        case .certificate(let field): return "\(capture.name) = certificate \(field.rawValue)"
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
