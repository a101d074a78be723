import PromiseEngine
import WorkflowModel

// Thresholds: `expect latency ...`, `expect failures ...` and
// `expect rate ...` in a group's block.
// See docs/language.md, 'Load'.

extension Parser {
    /// What a threshold can bound: the words after `expect` in a group's block.
    static let thresholdSubjects = LanguageTable.thresholdSubjects.map(\.name)

    /// After `expect` in a group's block. `labels` gets each `of LABEL`
    /// with its place, checked against the group's labels once its block
    /// is read.
    mutating func parseThreshold(labels: inout [SyntaxName]) throws(ParseFailure) -> Threshold {
        let subject = text(current)
        advance()
        let label = try parseThresholdLabel(after: subject, labels: &labels)
        let of = label.map { " of \($0.text)" } ?? ""
        switch subject {
        case "latency", "lateness":
            let statistics = Threshold.LatencyStatistic.examples
            guard current.kind == .identifier, let statistic = Threshold.LatencyStatistic(word: text(current)) else {
                let word = current.kind == .identifier ? text(current) : ""
                let suggestion = word.isEmpty ? "" : Suggestion.phrase(for: word, among: statistics)
                throw error(
                    "expected which \(subject) after '\(subject)\(of)' ("
                        + "min, mean, max or a percentile from p0.1 to p99.99, as in "
                        + statistics.filter { $0.hasPrefix("p") }.joined(separator: ", ") + "), found \(found)" + suggestion,
                    notes: [.init("as in 'expect \(subject) p99 < \(subject == "latency" ? "250ms" : "5ms")'")])
            }
            advance()
            let comparison = try parseThresholdComparison(after: "'\(statistic.word)'")
            let written = text(current)
            let bound = try parseDuration()
            return Threshold(
                measure: subject == "latency" ? .latency(statistic) : .lateness(statistic), label: label?.text,
                comparison: comparison, bound: bound.seconds,
                text: "\(subject)\(of) \(statistic.word) \(comparison.rawValue) \(written)")
        case "failures":
            let comparison = try parseThresholdComparison(after: "'failures\(of)'")
            let written = text(current)
            guard current.kind == .number else {
                throw error("expected a share (1%) or a count (3) after 'failures \(comparison.rawValue)', found \(found)")
            }
            if written.hasSuffix("%") {
                guard let percent = Double(written.dropLast()), percent >= 0, percent <= 100 else {
                    throw error("'\(written)' is not a share; write a percentage from 0% to 100%, as in 'expect failures < 1%'")
                }
                advance()
                return Threshold(
                    measure: .failureShare, label: label?.text, comparison: comparison, bound: percent / 100,
                    text: "failures\(of) \(comparison.rawValue) \(written)")
            }
            guard let count = Int(written), count >= 0 else {
                throw error(
                    "'\(written)' is not a count of failures; write a whole number (expect failures <= 3) "
                        + "or a share (expect failures < 1%)")
            }
            advance()
            return Threshold(
                measure: .failureCount, label: label?.text, comparison: comparison, bound: Double(count),
                text: "failures\(of) \(comparison.rawValue) \(written)")
        default:
            let comparison = try parseThresholdComparison(after: "'rate\(of)'")
            let written = text(current)
            guard current.kind == .number, let perSecond = RateText.parse(written), perSecond >= 0 else {
                throw error(
                    "expected a rate after 'rate \(comparison.rawValue)', as in 'expect rate >= 490/s' (per second, minute or hour: "
                        + "/s, /m, /h), found \(found)")
            }
            advance()
            return Threshold(
                measure: .rate, label: label?.text, comparison: comparison, bound: perSecond,
                text: "rate\(of) \(comparison.rawValue) \(written)")
        }
    }

    /// `of LABEL` after a threshold's subject: its measure is then over
    /// that label's runs only.
    private mutating func parseThresholdLabel(after subject: String, labels: inout [SyntaxName]) throws(ParseFailure)
        -> SyntaxName?
    {
        guard isKeyword("of") else { return nil }
        advance()
        let label = try expectIdentifier("the label of a step after '\(subject) of'")
        labels.append(label)
        return label
    }

    /// `<`, `<=`, `>` or `>=`: a threshold bounds a measure.
    private mutating func parseThresholdComparison(after what: String) throws(ParseFailure) -> ComparisonOperator {
        switch current.kind {
        case .less:
            advance()
            return .less
        case .lessEqual:
            advance()
            return .lessOrEqual
        case .greater:
            advance()
            return .greater
        case .greaterEqual:
            advance()
            return .greaterOrEqual
        case .equalEqual, .bangEqual, .equal:
            throw error("a threshold is a bound: write <, <=, > or >= after \(what), not '\(text(current))'")
        default:
            throw error("expected <, <=, > or >= after \(what), found \(found)")
        }
    }

    /// Reports each `of LABEL` of a group's thresholds that names no step
    /// inside the group.
    mutating func checkThresholdLabels(_ labels: [SyntaxName], in body: SyntaxBlock) {
        guard !labels.isEmpty else { return }
        var inside: [String] = []
        func collect(_ block: SyntaxBlock) {
            for statement in block.statements {
                switch statement {
                case .node(let node):
                    if let label = node.label, case .step = node.kind { inside.append(label.text) }
                    switch node.kind {
                    case .step: break
                    case .sequence(let body), .race(let body), .any(let body), .parallel(_, _, let body, _): collect(body)
                    case .foreach(let foreach): collect(foreach.body)
                    case .conditional(_, let then, let otherwise):
                        collect(then)
                        if let otherwise { collect(otherwise) }
                    }
                case .catchClause(let clause): collect(clause.body)
                case .ensure(let body, _): collect(body)
                case .environment, .variable, .dotenv: break
                }
            }
        }
        collect(body)
        for label in labels where !inside.contains(label.text) {
            let suggestion = Suggestion.phrase(for: label.text, among: inside)
            diagnostics.error(
                "no step labelled '\(label.text)' in this group (a threshold's 'of LABEL' "
                    + "names a step inside it)\(suggestion)", at: label.range)
        }
    }
}
