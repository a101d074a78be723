package import JSON
import PromiseEngine

/// The value fields of a finished step, as `{{label.field}}` reads them.
/// See docs/language.md, 'Steps'.
extension StepResult {
    /// The text of `field`: stdout and stderr without their final newline,
    /// `exit` and `status` as numbers, `duration` in seconds with three
    /// decimals (`1.234`), `header.NAME` looked up case-insensitively,
    /// `json.PATH` evaluated on the body (see `JSONDocument.textValue`).
    /// Throws a `StepFailure` of kind `reference` when the step has no such
    /// value: a header that was not sent, a JSON path that leads nowhere, a
    /// body that is not JSON, an exit code of a process a signal ended.
    package func value(of field: StepField) throws(StepFailure) -> String {
        func missing(_ message: String) -> StepFailure {
            StepFailure(.reference, message)
        }
        switch field {
        case .stdout:
            guard let stdout = self.stdout else { throw missing("the step has no stdout") }
            return Self.withoutFinalNewline(stdout.text)
        case .stderr:
            guard let stderr = self.stderr else { throw missing("the step has no stderr") }
            return Self.withoutFinalNewline(stderr.text)
        case .exit:
            if let exitCode = self.exitCode { return String(exitCode) }
            if let terminatingSignal = self.terminatingSignal {
                throw missing("the process has no exit code: it was ended by signal \(terminatingSignal)")
            }
            throw missing("the step has no exit code")
        case .duration:
            return Self.secondsText(self.duration)
        case .status:
            guard let status = self.status else { throw missing("the step has no HTTP status") }
            return String(status)
        case .body:
            guard let body = self.body else { throw missing("the step has no body") }
            return body.text
        case .header(let name):
            guard self.status != nil else { throw missing("the step has no response headers") }
            guard let value = header(name) else { throw missing("the response has no header '\(name)'") }
            return value
        case .json(let path):
            guard let body = self.body else { throw missing("the step has no body") }
            if body.truncated {
                throw missing("json\(path.components.isEmpty ? "" : path.description): only the end of the body was kept (\(body.totalBytes) bytes)")
            }
            let document: JSONDocument
            do {
                document = try JSONDocument.parse(body.text)
            } catch {
                throw missing("the body is not JSON (\(error))")
            }
            do {
                return try document.value(at: path).textValue
            } catch {
                throw missing("json path \(path) leads nowhere: \(error)")
            }
        case .path:
            guard let path = self.path else { throw missing("the step has no path") }
            return path
        case .content:
            guard let content = self.content else { throw missing("the step has no content") }
            return content
        case .capture(let name):
            guard let value = self.captures[name] else { throw missing("the step has no capture '\(name)'") }
            return value
        case .url where self.captures["url"] != nil, .redirects where self.captures["redirects"] != nil,
            .version where self.captures["version"] != nil:
            return self.captures[field.name]!
        case .url:
            guard let http = self.http else { throw missing("the step has no URL") }
            return http.url
        case .redirects:
            guard let http = self.http else { throw missing("the step has no redirects") }
            return String(http.redirects)
        case .version:
            guard let http = self.http else { throw missing("the step has no HTTP version") }
            return http.version
        case .cookie(let name):
            guard let http = self.http else { throw missing("the step has no cookies") }
            guard let value = http.cookie(name) else { throw missing("no cookie '\(name)' is in the store for \(http.url)") }
            return value
        case .timing(let phase):
            guard let http = self.http else { throw missing("the step has no timings") }
            return Self.microsecondsText(http.timings[phase])
        }
    }

    /// The value of `field` for filters: a JSON path's value, a capture's
    /// list or number, a status or exit code as a number, any other field
    /// as its text.
    package func document(of field: StepField) throws(StepFailure) -> JSONDocument {
        switch field {
        case .json(let path):
            guard let body = self.body else { throw StepFailure(.reference, "the step has no body") }
            if body.truncated {
                throw StepFailure(
                    .reference, "json\(path.components.isEmpty ? "" : path.description): only the end of the body was kept (\(body.totalBytes) bytes)"
                )
            }
            let document: JSONDocument
            do {
                document = try JSONDocument.parse(body.text)
            } catch {
                throw StepFailure(.reference, "the body is not JSON (\(error))")
            }
            do {
                return try document.value(at: path)
            } catch {
                throw StepFailure(.reference, "json path \(path) leads nowhere: \(error)")
            }
        case .capture(let name):
            if let value = self.capturedValues[name] { return value }
            return .string(try value(of: field))
        case .status, .exit, .redirects:
            let text = try value(of: field)
            return Int(text).map { .number(JSONNumber($0)) } ?? .string(text)
        default:
            return .string(try value(of: field))
        }
    }

    /// The text without one final `\n` (or `\r\n`).
    package static func withoutFinalNewline(_ text: String) -> String {
        var utf8 = Substring(text).utf8
        guard utf8.last == UInt8(ascii: "\n") else { return text }
        utf8 = utf8.dropLast()
        if utf8.last == UInt8(ascii: "\r") { utf8 = utf8.dropLast() }
        return String(Substring(utf8))
    }

    /// Seconds with six decimals, as curl writes its timings: `0.000412`.
    package static func microsecondsText(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        var microseconds = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
        if (attoseconds % 1_000_000_000_000) * 2 >= 1_000_000_000_000 { microseconds += 1 }
        let fraction = String(microseconds % 1_000_000)
        return "\(microseconds / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
    }

    /// Seconds with three decimals: `0.042`, `12.500`.
    package static func secondsText(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        var milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        if (attoseconds % 1_000_000_000_000_000) * 2 >= 1_000_000_000_000_000 { milliseconds += 1 }
        let whole = milliseconds / 1000
        let fraction = String(milliseconds % 1000)
        return "\(whole)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
