/// How a step ended (reports and console).
public enum StepStatus: String, Sendable, Hashable {
    /// Not yet ended (only while the run goes on).
    case pending
    case running
    case succeeded
    /// Not run: its `sources` and command are as in its last successful
    /// run and its `generates` exist (spec §13); a success for its chain.
    case upToDate = "up-to-date"
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
    /// The innermost group around the step (its id), nil at the top.
    public var group: String?
    /// A process step's output tails for reports (the last
    /// `ExecutionConfiguration.reportOutputLimit` bytes of each, secrets
    /// masked); nil when reports keep no output.
    public var standardOutput: CapturedText?
    public var standardError: CapturedText?
    /// A `log` step's message as printed, values filled in.
    public var message: String?
    /// Every attempt, when the step started more than once (retries).
    public var attemptLog: [AttemptRecord] = []
    /// It failed under `allow-failure`: reported, and the run went on.
    public var allowedFailure = false

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

/// One attempt of a step that was tried more than once.
public struct AttemptRecord: Sendable {
    /// 1 for the first.
    public var number: Int
    /// Seconds since the Unix epoch.
    public var startedAt: Double
    public var duration: Duration
    /// `succeeded`, `failed` or `cancelled`.
    public var status: StepStatus
    /// A process's exit code, when the attempt got one.
    public var exitCode: Int?
    /// An HTTP response's status, when the attempt got one.
    public var httpStatus: Int?
    /// Why it failed.
    public var failure: StepFailure?
    /// The last lines of its stderr, when it failed.
    public var outputTail: String?

    /// An attempt that ended: its number, start (seconds since the epoch), length and status.
    public init(number: Int, startedAt: Double, duration: Duration, status: StepStatus) {
        self.number = number
        self.startedAt = startedAt
        self.duration = duration
        self.status = status
    }
}

/// A group (`parallel`, `race`, `any`, `foreach`, `sequence`, `if`) as
/// reports show it: a lane with its steps, and a failure of its own when
/// it timed out or could not start (a failure of a step inside it is the
/// step's).
public struct GroupRecord: Sendable {
    /// The node id with iteration suffixes, as step ids are made.
    public var id: String
    /// The label as written, if any.
    public var label: String?
    /// `parallel`, `race`, `any`, `foreach`, `sequence`, `if`.
    public var kind: String
    /// The group around this one, nil at the top.
    public var parent: String?
    /// How it ended (pending or running while the run goes on).
    public var status: StepStatus
    /// How many times it started (a group's `retry` counts).
    public var attempts: Int
    /// Seconds since the Unix epoch when it first started.
    public var startedAt: Double?
    /// From the first start to the end.
    public var duration: Duration?
    /// Its own failure (a timeout, a list that could not be made); nil when
    /// it failed because a step inside it did.
    public var failure: StepFailure?
    /// Order in the workflow, for reports.
    public var order: Int
    /// It failed under `allow-failure`: reported, and the run went on.
    public var allowedFailure = false

    /// A group not yet started.
    public init(id: String, label: String?, kind: String, parent: String?, order: Int) {
        self.id = id
        self.label = label
        self.kind = kind
        self.parent = parent
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
