import PromiseEngine

/// A step's failure: its kind, a message that says what was expected and
/// what came, and what the step produced before failing.
package struct StepFailure: Error, Sendable, CustomStringConvertible {
    package var kind: FailureKind
    package var message: String
    /// What the step produced (exit code, status, output), when it got that far.
    package var result: StepResult?

    package init(_ kind: FailureKind, _ message: String, result: StepResult? = nil) {
        self.kind = kind
        self.message = message
        self.result = result
    }

    package var description: String { message }
}
