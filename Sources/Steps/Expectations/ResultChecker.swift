import PromiseEngine
import WorkflowModel
import JSON
import RunnerSystem

/// Checks the expectations that read a step's output (`contains`,
/// `matches`, `header`, `json`) and takes captures. Regexes are compiled
/// once per step and the body is parsed as JSON at most once.
struct ResultChecker {
    let result: StepResult
    /// Where the body went when it was saved to a file instead of kept.
    let savedBody: String?
    private var regexes: [String: Regex<AnyRegexOutput>] = [:]
    private var json: Result<JSONDocument, JSONParseError>?

    init(result: StepResult, savedBody: String?) {
        self.result = result
        self.savedBody = savedBody
    }

    mutating func check(_ expectation: ResolvedExpectation) throws(StepFailure) {
        switch expectation {
        case .status, .exit:
            return  // The evaluator checks these first.
        case .text(let stream, let predicate):
            let text = try self.text(of: stream, for: expectation)
            // `==` reads the output as `{{label.stdout}}` does: without one
            // final newline (a body is compared whole).
            let compared = stream == .body ? text : StepResult.withoutFinalNewline(text)
            let subject: String
            if case .equals = predicate.test { subject = compared } else { subject = text }
            guard try holds(predicate, on: subject) else {
                throw fail("expected \(stream) \(Self.words(predicate))" + shown(stream, text))
            }
        case .header(let name, let check):
            try checkHeader(name, check)
        case .json(let path, let check):
            try checkJSON(path, check)
        case .sha256(let wanted, let negated):
            let expected = "expected sha256 \(negated ? "!=" : "==") \(wanted)"
            guard let body = result.body, savedBody == nil else { throw fail("\(expected), but the body was not kept (saved to a file)") }
            guard !body.truncated else {
                throw fail("\(expected), but only the last \(body.text.utf8.count) of \(body.totalBytes) bytes were kept")
            }
            let got = SHA256.hex(of: body.text)
            guard (got == wanted) != negated else { throw fail("\(expected), got \(got)") }
        case .bytes(let op, let wanted):
            let size = result.body?.totalBytes ?? 0
            guard JSONComparison.order(size, wanted, op) else {
                throw fail("expected bytes count \(op.rawValue) \(wanted), but the body has \(size) bytes")
            }
        }
    }

    mutating func capture(_ captures: [Capture]) throws(StepFailure) -> [String: String] {
        var values: [String: String] = [:]
        for capture in captures {
            switch capture.source {
            case .json(let path):
                let document = try parsedBody(for: "capture \(capture.name) = json \"\(path)\"")
                do {
                    values[capture.name] = try document.value(at: path).textValue
                } catch {
                    throw fail("capture \(capture.name): json path \(path) leads nowhere: \(error)" + Excerpt.body(result))
                }
            case .header(let name):
                guard let value = result.header(name) else {
                    throw fail("capture \(capture.name): the response has no header \(name)")
                }
                values[capture.name] = value
            case .headerMatches(let name, let pattern):
                let headerValues = self.headerValues(name)
                guard !headerValues.isEmpty else {
                    throw fail("capture \(capture.name): the response has no header \(name)")
                }
                var found: String?
                for value in headerValues {
                    if let match = try firstMatch(of: pattern, in: value) {
                        found = Self.group(of: match)
                        break
                    }
                }
                guard let found else {
                    throw fail("capture \(capture.name): header \(name) does not match '\(pattern.source)'; got \(Excerpt.head(headerValues[0]))")
                }
                values[capture.name] = found
            case .cookie(let name):
                guard let value = result.http?.cookie(name) else {
                    throw fail("capture \(capture.name): no cookie '\(name)' is in the store for \(result.http?.url ?? "this step")")
                }
                values[capture.name] = value
            case .url:
                guard let url = result.http?.url else { throw fail("capture \(capture.name): the step has no URL") }
                values[capture.name] = url
            case .matches(let stream, let pattern):
                let text = try self.text(of: stream, for: nil)
                guard let match = try firstMatch(of: pattern, in: text) else {
                    throw fail("capture \(capture.name): \(stream) does not match '\(pattern.source)'" + shown(stream, text))
                }
                values[capture.name] = Self.group(of: match)
            }
        }
        return values
    }

    // MARK: - Pieces

    /// The first group of a match, else the whole match.
    private static func group(of match: Regex<AnyRegexOutput>.Match) -> String {
        if match.output.count > 1 {
            return match.output[1].substring.map(String.init) ?? ""
        }
        return String(match.output[0].substring ?? "")
    }

    /// Every value a response header came with, in order (names compared
    /// without case).
    private func headerValues(_ name: String) -> [String] {
        let wanted = name.lowercased()
        return result.headers.values(named: wanted)
    }

    /// `to contain "x"`, `not to match 'y'`, `to be "z"`: for messages.
    static func words(_ predicate: ResolvedTextPredicate) -> String {
        let not = predicate.negated ? "not " : ""
        switch predicate.test {
        case .equals(let text): return "\(not)to be \(Excerpt.quoted(Substring(text)))"
        case .contains(let text): return "\(not)to contain \(Excerpt.quoted(Substring(text)))"
        case .startsWith(let text): return "\(not)to start with \(Excerpt.quoted(Substring(text)))"
        case .endsWith(let text): return "\(not)to end with \(Excerpt.quoted(Substring(text)))"
        case .matches(let pattern): return "\(not)to match '\(pattern.source)'"
        }
    }

    /// Whether `text` satisfies the predicate (`not` included).
    private mutating func holds(_ predicate: ResolvedTextPredicate, on text: String) throws(StepFailure) -> Bool {
        let positive: Bool
        switch predicate.test {
        case .equals(let wanted): positive = text == wanted
        case .contains(let wanted): positive = text.contains(wanted)
        case .startsWith(let wanted): positive = text.hasPrefix(wanted)
        case .endsWith(let wanted): positive = text.hasSuffix(wanted)
        case .matches(let pattern): positive = try firstMatch(of: pattern, in: text) != nil
        }
        return positive != predicate.negated
    }

    private func fail(_ message: String) -> StepFailure {
        StepFailure(.expect, message, result: result)
    }

    /// `; stdout: "..."`, with a note when only the end was kept.
    private func shown(_ stream: ResultStream, _ text: String) -> String {
        var note = "; \(stream): " + Excerpt.stream(stream, text)
        if let captured = captured(stream), captured.truncated {
            note += " (only the last \(captured.text.utf8.count) of \(captured.totalBytes) bytes were kept)"
        }
        return note
    }

    private func captured(_ stream: ResultStream) -> CapturedText? {
        switch stream {
        case .stdout: return result.stdout
        case .stderr: return result.stderr
        case .body: return result.body
        }
    }

    private func text(of stream: ResultStream, for expectation: ResolvedExpectation?) throws(StepFailure) -> String {
        if stream == .body, let savedBody {
            throw fail("\(expectation.map(describe) ?? "body"): the body was saved to \(savedBody), not kept in memory")
        }
        return captured(stream)?.text ?? ""
    }

    private func describe(_ expectation: ResolvedExpectation) -> String {
        "expect " + ExpectationText.describe(expectation)
    }

    private mutating func firstMatch(of pattern: RegexPattern, in text: String) throws(StepFailure) -> Regex<AnyRegexOutput>.Match? {
        let regex: Regex<AnyRegexOutput>
        if let compiled = regexes[pattern.source] {
            regex = compiled
        } else {
            do {
                regex = try Regex(pattern.source).anchorsMatchLineEndings()
            } catch {
                throw fail("invalid regular expression '\(pattern.source)': \(error)")
            }
            regexes[pattern.source] = regex
        }
        return text.firstMatch(of: regex)
    }

    private mutating func checkHeader(_ name: String, _ check: ResolvedExpectation.HeaderCheck) throws(StepFailure) {
        let values = headerValues(name)
        let described: String
        switch check {
        case .text(let predicate): described = "expected header \(name) \(Self.words(predicate))"
        case .count(let op, let count): described = "expected header \(name) count \(op.rawValue) \(count)"
        case .exists(let negated): described = "expected header \(name) \(negated ? "not to exist" : "to exist")"
        }
        switch check {
        case .exists(let negated):
            if negated, !values.isEmpty {
                throw fail("\(described), but it came \(Self.times(values.count)): \(Excerpt.head(values[0]))")
            }
            if !negated, values.isEmpty { throw fail("\(described), but the response has no header \(name)") }
        case .count(let op, let wanted):
            guard JSONComparison.order(values.count, wanted, op) else {
                throw fail("\(described), but it came \(Self.times(values.count))")
            }
        case .text(let predicate):
            if values.isEmpty {
                // No value: `not contains` and `!=` hold; the others fail.
                guard predicate.negated else { throw fail("\(described), but the response has no header \(name)") }
                return
            }
            var satisfied = false
            for value in values where try holds(ResolvedTextPredicate(predicate.test), on: value) {
                satisfied = true
                break
            }
            guard satisfied != predicate.negated else {
                let shown = values.prefix(3).map { Excerpt.head($0) }.joined(separator: ", ")
                throw fail("\(described), got \(shown)")
            }
        }
    }

    private static func times(_ count: Int) -> String {
        count == 1 ? "once" : "\(count) times"
    }

    private mutating func checkJSON(_ path: JSONPath, _ check: ResolvedJSONCheck) throws(StepFailure) {
        let expected: String
        switch check {
        case .exists(let negated): expected = "\(path) \(negated ? "not to exist" : "to exist")"
        case .compare(let op, let literal): expected = "\(path) \(op.rawValue) \(JSONComparison.describe(literal))"
        case .count(let op, let count): expected = "\(path) count \(op.rawValue) \(count)"
        case .contains(let wanted, let negated):
            expected = "\(path) \(negated ? "not to contain" : "to contain") \(Excerpt.quoted(Substring(wanted)))"
        case .matches(let pattern, let negated): expected = "\(path) \(negated ? "not to match" : "to match") '\(pattern.source)'"
        case .isType(let type, let negated): expected = "\(path) \(negated ? "not to be" : "to be") \(JSONComparison.article(type.rawValue))"
        case .predicate(let predicate, let negated): expected = "\(path) \(negated ? "not " : "")\(predicate.rawValue)"
        }
        let document = try parsedBody(for: "expected json " + expected)
        let value: JSONDocument
        do {
            value = try document.value(at: path)
        } catch {
            if case .exists(negated: true) = check { return }
            throw fail("expected json \(expected), but \(error)" + Excerpt.body(result))
        }
        let got = Excerpt.clip(value.serialized, length: 120)
        switch check {
        case .exists(let negated) where path.selectsMany:
            // A query exists when it selects something.
            let selected = value != .array([])
            guard selected == negated else { return }
            throw fail(negated ? "expected json \(expected), but it selects \(got)" : "expected json \(expected), but it selects nothing")
        case .exists(let negated):
            if negated { throw fail("expected json \(expected), but it is there: \(got)") }
        case .compare(let op, let literal):
            guard JSONComparison.holds(value, op, literal) else { throw fail("expected json \(expected), got \(got)") }
        case .count(let op, let wanted):
            let count: Int
            switch value {
            case .array(let items): count = items.count
            case .object(let object): count = object.members.count
            default: throw fail("expected json \(expected), but it is a \(value.typeName), not an array or object: \(got)")
            }
            guard JSONComparison.order(count, wanted, op) else {
                throw fail("expected json \(expected), but it has \(count): \(Excerpt.clip(value.serialized, length: 120))")
            }
        case .contains(let wanted, let negated):
            let positive: Bool
            switch value {
            case .array(let items): positive = items.contains { JSONComparison.element($0, equals: wanted) }
            case .string(let text): positive = text.contains(wanted)
            default: throw fail("expected json \(expected), but it is a \(value.typeName), not an array or string: \(got)")
            }
            guard positive != negated else { throw fail("expected json \(expected), got \(got)") }
        case .matches(let pattern, let negated):
            let text: String
            switch value {
            case .array, .object: throw fail("expected json \(expected), but it is an \(value.typeName): \(got)")
            default: text = value.textValue
            }
            guard try (firstMatch(of: pattern, in: text) != nil) != negated else {
                throw fail("expected json \(expected), got \(got)")
            }
        case .isType(let type, let negated):
            guard JSONComparison.isType(value, type) != negated else {
                throw fail("expected json \(expected), but it is \(JSONComparison.typeWords(value)): \(got)")
            }
        case .predicate(let predicate, let negated):
            guard ValuePredicates.holds(predicate, for: value) != negated else {
                throw fail("expected json \(expected), got \(got)")
            }
        }
    }

    /// The body as JSON, parsed once.
    private mutating func parsedBody(for what: String) throws(StepFailure) -> JSONDocument {
        if let savedBody {
            throw fail("\(what): the body was saved to \(savedBody), not kept in memory")
        }
        if json == nil {
            let text = result.body?.text ?? ""
            json = Result { () throws(JSONParseError) in try JSONDocument.parse(text) }
        }
        switch json! {
        case .success(let document): return document
        case .failure(let error): throw fail("\(what), but the body is not JSON (\(error))" + Excerpt.body(result))
        }
    }
}
