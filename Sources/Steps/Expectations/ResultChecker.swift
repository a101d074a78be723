import PromiseEngine

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

    mutating func check(_ expectation: StepExpectation) throws(StepFailure) {
        switch expectation {
        case .status, .exit:
            return  // The evaluator checks these first.
        case .contains(let stream, let needle):
            let text = try self.text(of: stream, for: expectation)
            let wanted = needle.literalValue ?? ""
            guard text.contains(wanted) else {
                throw fail("expected \(stream) to contain \(Excerpt.quoted(Substring(wanted)))"
                           + shown(stream, text))
            }
        case .matches(let stream, let pattern):
            let text = try self.text(of: stream, for: expectation)
            guard try firstMatch(of: pattern, in: text) != nil else {
                throw fail("expected \(stream) to match '\(pattern.source)'" + shown(stream, text))
            }
        case .header(let name, let check):
            try checkHeader(name, check)
        case .json(let path, let check):
            try checkJSON(path, check)
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
            case .matches(let stream, let pattern):
                let text = try self.text(of: stream, for: nil)
                guard let match = try firstMatch(of: pattern, in: text) else {
                    throw fail("capture \(capture.name): \(stream) does not match '\(pattern.source)'" + shown(stream, text))
                }
                // The first group, else the whole match.
                if match.output.count > 1 {
                    values[capture.name] = match.output[1].substring.map(String.init) ?? ""
                } else {
                    values[capture.name] = String(match.output[0].substring ?? "")
                }
            }
        }
        return values
    }

    // MARK: - Pieces

    private func fail(_ message: String) -> StepFailure {
        StepFailure(.expect, message, result: result)
    }

    /// `; stdout: "..."`, with a note when only the end was kept.
    private func shown(_ stream: StepExpectation.Stream, _ text: String) -> String {
        var note = "; \(stream): " + Excerpt.stream(stream, text)
        if let captured = captured(stream), captured.truncated {
            note += " (only the last \(captured.text.utf8.count) of \(captured.totalBytes) bytes were kept)"
        }
        return note
    }

    private func captured(_ stream: StepExpectation.Stream) -> CapturedText? {
        switch stream {
        case .stdout: return result.stdout
        case .stderr: return result.stderr
        case .body: return result.body
        }
    }

    private func text(of stream: StepExpectation.Stream, for expectation: StepExpectation?) throws(StepFailure) -> String {
        if stream == .body, let savedBody {
            throw fail("\(expectation.map(describe) ?? "body"): the body was saved to \(savedBody), not kept in memory")
        }
        return captured(stream)?.text ?? ""
    }

    private func describe(_ expectation: StepExpectation) -> String {
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

    private mutating func checkHeader(_ name: String, _ check: StepExpectation.HeaderCheck) throws(StepFailure) {
        let value = result.header(name)
        switch check {
        case .contains(let needle):
            let wanted = needle.literalValue ?? ""
            guard let value else {
                throw fail("expected header \(name) to contain \(Excerpt.quoted(Substring(wanted))), but the response has no header \(name)")
            }
            guard value.contains(wanted) else {
                throw fail("expected header \(name) to contain \(Excerpt.quoted(Substring(wanted))), got \(Excerpt.head(value))")
            }
        case .matches(let pattern):
            guard let value else {
                throw fail("expected header \(name) to match '\(pattern.source)', but the response has no header \(name)")
            }
            guard try firstMatch(of: pattern, in: value) != nil else {
                throw fail("expected header \(name) to match '\(pattern.source)', got \(Excerpt.head(value))")
            }
        }
    }

    private mutating func checkJSON(_ path: JSONPath, _ check: JSONCheck) throws(StepFailure) {
        let expected: String
        switch check {
        case .exists: expected = "json \(path) to exist"
        case .compare(let op, let literal): expected = "json \(path) \(op.rawValue) \(JSONComparison.describe(literal))"
        }
        let document = try parsedBody(for: "expected " + expected)
        let value: JSONDocument
        do {
            value = try document.value(at: path)
        } catch {
            throw fail("expected \(expected), but \(error)" + Excerpt.body(result))
        }
        guard case .compare(let op, let literal) = check else { return }
        guard JSONComparison.holds(value, op, literal) else {
            throw fail("expected \(expected), got \(Excerpt.clip(value.serialized, length: 120))")
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
