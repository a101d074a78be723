/// A step's failure: its kind, a message that says what was expected and
/// what came, and what the step produced before failing.
public struct StepFailure: Error, Sendable, CustomStringConvertible {
    public var kind: FailureKind
    public var message: String
    /// What the step produced (exit code, status, output), when it got that far.
    public var result: StepResult?

    public init(_ kind: FailureKind, _ message: String, result: StepResult? = nil) {
        self.kind = kind
        self.message = message
        self.result = result
    }

    public var description: String { message }
}
