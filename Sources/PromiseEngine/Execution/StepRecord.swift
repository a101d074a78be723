/// How a step ended (reports and console).
public enum StepStatus: String, Sendable, Hashable {
    /// Not yet ended (only while the run goes on).
    case pending
    case running
    case succeeded
    case failed
    /// Never started: an earlier failure, a branch not taken, a group that
    /// stopped first.
    case skipped
    /// Started, then stopped by a timeout above it, a failing sibling, a
    /// lost race, or an interrupt.
    case cancelled
}

/// Everything a report says about one step.
public struct StepRecord: Sendable {
    /// Unique in the run: the label (with `[i]` inside foreach iterations),
    /// or `kind@line:col`.
    public var id: String
    public var label: String?
    /// `sh`, `exec`, `http`, `file`, `sleep`, `log`, `fail`, `rethrow`.
    public var kind: String
    /// What the step does, in a few words (the command, the URL).
    public var summary: String
    public var status: StepStatus
    public var attempts: Int
    /// Seconds since the Unix epoch when it first started.
    public var startedAt: Double?
    /// From the first start to the end (all attempts).
    public var duration: Duration?
    public var exitCode: Int?
    public var httpStatus: Int?
    public var failure: StepFailure?
    /// The last lines of the step's stderr (processes) when it failed.
    public var outputTail: String?
    /// Order in the workflow, for reports.
    public var order: Int
    /// An http step's final URL, redirects, version and timings (its
    /// cookies are not kept in the record).
    public var http: HTTPExchangeInfo?

    public init(id: String, label: String?, kind: String, summary: String, order: Int) {
        self.id = id
        self.label = label
        self.kind = kind
        self.summary = summary
        self.status = .pending
        self.attempts = 0
        self.order = order
    }
}

/// A failure as it travels up the chain: which step (or group) failed, how,
/// and why. What `{{error.*}}` reads inside a catch.
public struct RunError: Error, Sendable, CustomStringConvertible {
    public var stepID: String
    public var kind: FailureKind
    public var message: String
    public var exitCode: Int?
    /// Other failures reported with this one (a keep-going group's, an
    /// ensure's that failed after the chain had failed).
    public var others: [RunError]

    public init(stepID: String, kind: FailureKind, message: String, exitCode: Int? = nil, others: [RunError] = []) {
        self.stepID = stepID
        self.kind = kind
        self.message = message
        self.exitCode = exitCode
        self.others = others
    }

    public var description: String { "\(stepID): \(message)" }
}
