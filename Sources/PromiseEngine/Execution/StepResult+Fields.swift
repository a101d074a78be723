// PLACEHOLDER until the Steps branch lands with the JSON evaluator: the
// merge takes that branch's version of this file.
extension StepResult {
    /// The text of a value field, as `{{label.field}}` interpolates it.
    public func value(of field: StepField) throws(StepFailure) -> String {
        func missing(_ what: String) -> StepFailure { StepFailure(.reference, "no \(what) in this step's result") }
        switch field {
        case .stdout: guard let stdout else { throw missing("stdout") }; return stdout.text
        case .stderr: guard let stderr else { throw missing("stderr") }; return stderr.text
        case .exit: guard let exitCode else { throw missing("exit code") }; return String(exitCode)
        case .duration: return duration.secondsText
        case .status: guard let status else { throw missing("status") }; return String(status)
        case .body: guard let body else { throw missing("body") }; return body.text
        case .header(let name): guard let value = header(name) else { throw missing("header '\(name)'") }; return value
        case .json: throw missing("JSON")
        case .path: guard let path else { throw missing("path") }; return path
        case .content: guard let content else { throw missing("content") }; return content
        case .capture(let name): guard let value = captures[name] else { throw missing("capture '\(name)'") }; return value
        }
    }
}
