import JSON
import PromiseEngine
import RunnerSystem
import WorkflowModel

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
        case .value(let subject, let filters, let check):
            try checkValue(subject, filters, check)
        case .sha256(let wanted, let negated):
            let expected = "expected sha256 \(negated ? "!=" : "==") \(wanted)"
            guard let body = result.body, savedBody == nil else { throw fail("\(expected), but the body was not kept (saved to a file)") }
            guard !body.truncated else {
                throw fail("\(expected), but only the last \(body.text.utf8.count) of \(body.totalBytes) bytes were kept")
            }
            let got = SHA256.hex(of: body.text)
            guard (got == wanted) != negated else { throw fail("\(expected), got \(got)") }
        case .md5(let wanted, let negated):
            let expected = "expected md5 \(negated ? "!=" : "==") \(wanted)"
            guard let body = result.body, savedBody == nil else { throw fail("\(expected), but the body was not kept (saved to a file)") }
            guard !body.truncated else {
                throw fail("\(expected), but only the last \(body.text.utf8.count) of \(body.totalBytes) bytes were kept")
            }
            let got = MD5.hex(of: body.text)
            guard (got == wanted) != negated else { throw fail("\(expected), got \(got)") }
        case .duration(let op, let limit):
            let took = result.duration
            let holds: Bool
            switch op {
            case .equal: holds = took == limit
            case .notEqual: holds = took != limit
            case .less: holds = took < limit
            case .lessOrEqual: holds = took <= limit
            case .greater: holds = took > limit
            case .greaterOrEqual: holds = took >= limit
            }
            guard holds else {
                throw fail("expected duration \(op.rawValue) \(DurationText.format(limit)), but it took \(StepResult.secondsText(took))s")
            }
        case .bytes(let op, let wanted):
            let size = result.body?.totalBytes ?? 0
            guard JSONComparison.order(size, wanted, op) else {
                throw fail("expected bytes count \(op.rawValue) \(wanted), but the body has \(size) bytes")
            }
        }
    }

    /// The captures' texts, and the values of those that are not text (a
    /// list, a number) for filters later (`{{r.items | count}}`).
    mutating func capture(_ captures: [Capture]) throws(StepFailure) -> (texts: [String: String], values: [String: JSONDocument]) {
        var values: [String: String] = [:]
        var documents: [String: JSONDocument] = [:]
        for capture in captures {
            switch capture.source {
            case .json(let path):
                let document = try parsedBody(for: "capture \(capture.name) = json \"\(path)\"")
                do {
                    let value = try document.value(at: path)
                    values[capture.name] = value.textValue
                    if case .string = value {} else { documents[capture.name] = value }
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
            case .certificate(let field):
                values[capture.name] = try certificate(field, for: "capture \(capture.name) = certificate \(field.rawValue)")
            case .xpath(let expression):
                let value = try xpath(expression, for: "capture \(capture.name) = xpath \"\(expression)\"")
                values[capture.name] = value.textValue
                if case .string = value {} else { documents[capture.name] = value }
            case .matches(let stream, let pattern):
                let text = try self.text(of: stream, for: nil)
                guard let match = try firstMatch(of: pattern, in: text) else {
                    throw fail("capture \(capture.name): \(stream) does not match '\(pattern.source)'" + shown(stream, text))
                }
                values[capture.name] = Self.group(of: match)
            }
            guard !capture.filters.isEmpty, let text = values[capture.name] else { continue }
            let value = documents[capture.name] ?? .string(text)
            do {
                let filtered = try FilterCall.apply(capture.filters, to: value, sha256: SHA256.hex(of:))
                values[capture.name] = filtered.textValue
                if case .string = filtered {
                    documents[capture.name] = nil
                } else {
                    documents[capture.name] = filtered
                }
            } catch {
                throw fail("capture \(ExpectationText.describe(capture)): \(error.message)")
            }
        }
        return (values, documents)
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

    /// `to exist`, `== 42`, `not to contain "x"`: a check in a message.
    private static func words(_ check: ResolvedJSONCheck) -> String {
        switch check {
        case .exists(let negated): return negated ? "not to exist" : "to exist"
        case .compare(let op, let literal): return "\(op.rawValue) \(JSONComparison.describe(literal))"
        case .count(let op, let count): return "count \(op.rawValue) \(count)"
        case .contains(let wanted, let negated): return "\(negated ? "not to contain" : "to contain") \(Excerpt.quoted(Substring(wanted)))"
        case .startsWith(let wanted, let negated): return "\(negated ? "not to start with" : "to start with") \(Excerpt.quoted(Substring(wanted)))"
        case .endsWith(let wanted, let negated): return "\(negated ? "not to end with" : "to end with") \(Excerpt.quoted(Substring(wanted)))"
        case .matches(let pattern, let negated): return "\(negated ? "not to match" : "to match") '\(pattern.source)'"
        case .isType(let type, let negated): return "\(negated ? "not to be" : "to be") \(JSONComparison.article(type.rawValue))"
        case .predicate(let predicate, let negated): return "\(negated ? "not " : "")\(predicate.rawValue)"
        }
    }

    private mutating func checkJSON(_ path: JSONPath, _ check: ResolvedJSONCheck) throws(StepFailure) {
        let expected = "expected json \(path) " + Self.words(check)
        let document = try parsedBody(for: expected)
        let value: JSONDocument
        do {
            value = try document.value(at: path)
        } catch {
            if case .exists(negated: true) = check { return }
            throw fail("\(expected), but \(error)" + Excerpt.body(result))
        }
        try checkValue(value, check, expected: expected, selectsMany: path.selectsMany)
    }

    /// `expect SUBJECT | FILTER ... CHECK`: the subject's value through the
    /// filters, checked as a JSON value is.
    private mutating func checkValue(_ subject: ValueSubject, _ filters: [FilterCall], _ check: ResolvedJSONCheck) throws(StepFailure) {
        let expected = "expected \(subject.sourceText)\(FilterCall.sourceText(filters)) " + Self.words(check)
        var value: JSONDocument
        switch subject {
        case .stream(let stream):
            let text = try self.text(of: stream, for: nil)
            value = .string(stream == .body ? text : StepResult.withoutFinalNewline(text))
        case .header(let name):
            guard let text = result.header(name) else {
                if case .exists(negated: true) = check { return }
                throw fail("\(expected), but the response has no header \(name)")
            }
            value = .string(text)
        case .json(let path):
            let document = try parsedBody(for: expected)
            do {
                value = try document.value(at: path)
            } catch {
                if case .exists(negated: true) = check { return }
                throw fail("\(expected), but json path \(path) leads nowhere: \(error)" + Excerpt.body(result))
            }
        case .url:
            guard let url = result.http?.url else { throw fail("\(expected), but the step has no URL") }
            value = .string(url)
        case .version:
            guard let version = result.http?.version else { throw fail("\(expected), but the step has no HTTP version") }
            value = .string(version)
        case .xpath(let expression):
            value = try xpath(expression, for: expected)
        case .certificate(let field):
            value = .string(try certificate(field, for: expected))
        case .cookie(let name, let attribute):
            let cookies = SetCookieLines.parse(result.headers.values(named: "set-cookie"))
            guard let cookie = cookies.last(where: { $0.name == name }) else {
                if case .exists(negated: true) = check { return }
                let set = cookies.map(\.name)
                throw fail(
                    "\(expected), but the response set no cookie \(name)"
                        + (set.isEmpty ? " (no Set-Cookie)" : " (it set \(set.joined(separator: ", ")))"))
            }
            if let attribute {
                guard let found = cookie.attribute(attribute) else {
                    if case .exists(negated: true) = check { return }
                    throw fail("\(expected), but cookie \(name) has no attribute \(attribute): \(Excerpt.head(cookie.line))")
                }
                value = .string(found)
            } else {
                value = .string(cookie.value)
            }
        }
        do {
            value = try FilterCall.apply(filters, to: value, sha256: SHA256.hex(of:))
        } catch {
            throw fail("\(expected), but \(error.message)")
        }
        var check = check
        if case .certificate(.serialNumber) = subject, filters.isEmpty {
            // Case and colons do not count in a serial number.
            check = Self.serialCheck(check)
        }
        // A node set exists when it holds a node, as a JSONPath query does.
        var selectsMany = false
        if case .xpath = subject, filters.isEmpty, case .array = value { selectsMany = true }
        try checkValue(value, check, expected: expected, selectsMany: selectsMany, dates: filters.isEmpty && subject.isDate)
    }

    /// A check of a serial number with its text in lower-case hex without
    /// colons, as the certificate's is.
    private static func serialCheck(_ check: ResolvedJSONCheck) -> ResolvedJSONCheck {
        func hex(_ text: String) -> String { String(text.lowercased().filter { $0 != ":" && $0 != " " }) }
        switch check {
        case .compare(let op, .string(let text)): return .compare(op, .string(hex(text)))
        case .contains(let text, let negated): return .contains(hex(text), negated: negated)
        case .startsWith(let text, let negated): return .startsWith(hex(text), negated: negated)
        case .endsWith(let text, let negated): return .endsWith(hex(text), negated: negated)
        default: return check
        }
    }

    /// A field of the server's certificate.
    private func certificate(_ field: CertificateField, for what: String) throws(StepFailure) -> String {
        guard let http = result.http else { throw fail("\(what), but the step has no response") }
        guard let certificate = http.certificate else {
            if http.url.hasPrefix("http://") { throw fail("\(what), but \(http.url) came over plain HTTP: there is no certificate") }
            throw fail("\(what), but libcurl gave no certificate for \(http.url)")
        }
        return certificate[field]
    }

    /// XPath on the body.
    private func xpath(_ expression: String, for what: String) throws(StepFailure) -> JSONDocument {
        if let savedBody { throw fail("\(what): the body was saved to \(savedBody), not kept in memory") }
        guard let body = result.body else { throw fail("\(what), but the step has no body") }
        if body.truncated {
            throw fail("\(what), but only the last \(body.text.utf8.count) of \(body.totalBytes) bytes of the body were kept")
        }
        do {
            return try XPathQuery.evaluate(expression, on: body.text, contentType: result.header("Content-Type"))
        } catch {
            throw fail("\(what), but \(error.message)" + (error.message.hasPrefix("the body is not") ? Excerpt.body(result) : ""))
        }
    }

    /// A value against a check; `expected` starts the message.
    private mutating func checkValue(
        _ value: JSONDocument, _ check: ResolvedJSONCheck, expected: String, selectsMany: Bool,
        dates: Bool = false
    ) throws(StepFailure) {
        let got = Excerpt.clip(value.serialized, length: 120)
        switch check {
        case .exists(let negated) where selectsMany:
            // A query exists when it selects something.
            let selected = value != .array([])
            guard selected == negated else { return }
            throw fail(negated ? "\(expected), but it selects \(got)" : "\(expected), but it selects nothing")
        case .exists(let negated):
            if negated { throw fail("\(expected), but it is there: \(got)") }
        case .compare(let op, let literal) where literal.isString && dates:
            // A certificate's dates compare as times.
            guard case .string(let text) = value, case .string(let wanted) = literal,
                let time = RFC3339.parse(text), let limit = RFC3339.parse(wanted)
            else {
                throw fail("\(expected), but \(got) or the time compared with is not an RFC 3339 time (2030-01-01T00:00:00Z)")
            }
            guard JSONComparison.order(time, limit, op) else { throw fail("\(expected), got \(got)") }
        case .compare(let op, let literal):
            guard JSONComparison.holds(value, op, literal) else { throw fail("\(expected), got \(got)") }
        case .count(let op, let wanted):
            let count: Int
            switch value {
            case .array(let items): count = items.count
            case .object(let object): count = object.members.count
            default: throw fail("\(expected), but it is a \(value.typeName), not an array or object: \(got)")
            }
            guard JSONComparison.order(count, wanted, op) else {
                throw fail("\(expected), but it has \(count): \(got)")
            }
        case .contains(let wanted, let negated):
            let positive: Bool
            switch value {
            case .array(let items): positive = items.contains { JSONComparison.element($0, equals: wanted) }
            case .string(let text): positive = text.contains(wanted)
            default: throw fail("\(expected), but it is a \(value.typeName), not an array or string: \(got)")
            }
            guard positive != negated else { throw fail("\(expected), got \(got)") }
        case .startsWith(let wanted, let negated), .endsWith(let wanted, let negated):
            guard case .string(let text) = value else {
                throw fail("\(expected), but it is \(JSONComparison.typeWords(value)), not a string: \(got)")
            }
            let positive: Bool
            if case .startsWith = check { positive = text.hasPrefix(wanted) } else { positive = text.hasSuffix(wanted) }
            guard positive != negated else { throw fail("\(expected), got \(got)") }
        case .matches(let pattern, let negated):
            let text: String
            switch value {
            case .array, .object: throw fail("\(expected), but it is an \(value.typeName): \(got)")
            default: text = value.textValue
            }
            guard try (firstMatch(of: pattern, in: text) != nil) != negated else {
                throw fail("\(expected), got \(got)")
            }
        case .isType(let type, let negated):
            guard JSONComparison.isType(value, type) != negated else {
                throw fail("\(expected), but it is \(JSONComparison.typeWords(value)): \(got)")
            }
        case .predicate(let predicate, let negated):
            guard ValuePredicates.holds(predicate, for: value) != negated else {
                throw fail("\(expected), got \(got)")
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
