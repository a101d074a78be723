import PromiseEngine
package import WorkflowModel

/// How a step ended (reports and console).
package enum StepStatus: String, Sendable, Hashable, CaseIterable {
    /// Not yet ended (only while the run goes on).
    case pending
    case running
    case succeeded
    /// Not run: its `sources` and command are as in its last successful
    /// run and its `generates` exist; a success for its chain.
    case upToDate = "up-to-date"
    case failed
    /// Never started: an earlier failure, a branch not taken, a group that
    /// stopped first.
    case skipped
    /// Started, then stopped by a timeout above it, a failing sibling, a
    /// lost race, or an interrupt.
    case cancelled
}

/// Where an up-to-date step's result came from.
package enum UpToDateSource: String, Sendable, Hashable {
    /// The store beside the workflow file.
    case local
    /// The shared cache: its files were restored.
    case cache
}

/// Everything a report says about one step.
///
/// Its two dozen fields live in one box, shared by copies until a copy
/// changes one: a record is handed to the recorder, the console, the
/// statistics and the reports, and each copy was a memcpy of 300 bytes and
/// a retain of each reference among them, five times per step. Not
/// `BoxedFields`: read through its key paths from the modules that use
/// records, a field cost more than the copies did (measured: 1,000 `true`
/// +6.8% instructions, the no-op +15.7%).
package struct StepRecord: Sendable {
    /// The fields, shared by copies until one changes them.
    private final class Fields: @unchecked Sendable {
        // @unchecked: changed only through a record that holds the box alone.
        @exclusivity(unchecked) var id: String
        @exclusivity(unchecked) var label: String? = nil
        @exclusivity(unchecked) var kind: String
        @exclusivity(unchecked) var summary: String
        @exclusivity(unchecked) var status: StepStatus
        @exclusivity(unchecked) var attempts: Int
        @exclusivity(unchecked) var startedAt: Double? = nil
        @exclusivity(unchecked) var duration: Duration? = nil
        @exclusivity(unchecked) var exitCode: Int? = nil
        @exclusivity(unchecked) var httpStatus: Int? = nil
        @exclusivity(unchecked) var failure: StepFailure? = nil
        @exclusivity(unchecked) var outputTail: String? = nil
        @exclusivity(unchecked) var order: Int
        @exclusivity(unchecked) var http: HTTPExchangeInfo? = nil
        @exclusivity(unchecked) var group: String? = nil
        @exclusivity(unchecked) var standardOutput: CapturedText? = nil
        @exclusivity(unchecked) var standardError: CapturedText? = nil
        @exclusivity(unchecked) var message: String? = nil
        @exclusivity(unchecked) var attemptLog: [AttemptRecord] = []
        @exclusivity(unchecked) var allowedFailure: Bool = false
        @exclusivity(unchecked) var handledBy: String? = nil
        @exclusivity(unchecked) var executor: Placement.ExecutorKind? = nil
        @exclusivity(unchecked) var slurmJob: String? = nil
        @exclusivity(unchecked) var upToDateFrom: UpToDateSource? = nil

        init(id: String, kind: String, summary: String, status: StepStatus, attempts: Int, order: Int) {
            self.id = id
            self.kind = kind
            self.summary = summary
            self.status = status
            self.attempts = attempts
            self.order = order
        }

        func copy() -> Fields {
            let copy = Fields(id: id, kind: kind, summary: summary, status: status, attempts: attempts, order: order)
            copy.label = label
            copy.startedAt = startedAt
            copy.duration = duration
            copy.exitCode = exitCode
            copy.httpStatus = httpStatus
            copy.failure = failure
            copy.outputTail = outputTail
            copy.http = http
            copy.group = group
            copy.standardOutput = standardOutput
            copy.standardError = standardError
            copy.message = message
            copy.attemptLog = attemptLog
            copy.allowedFailure = allowedFailure
            copy.handledBy = handledBy
            copy.executor = executor
            copy.slurmJob = slurmJob
            copy.upToDateFrom = upToDateFrom
            return copy
        }
    }

    private var fields: Fields

    /// Unique in the run: the label (with `[i]` inside foreach iterations),
    /// or `kind@line:col`.
    package var id: String {
        get { fields.id }
        _modify {
            if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
            yield &fields.id
        }
    }

    package var label: String? {
        get { fields.label }
        _modify {
            if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
            yield &fields.label
        }
    }

    /// `sh`, `exec`, `http`, `file`, `sleep`, `log`, `fail`, `rethrow`.
    package var kind: String {
        get { fields.kind }
        _modify {
            if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
            yield &fields.kind
        }
    }

    /// What the step does, in a few words (the command, the URL).
    package var summary: String {
        get { fields.summary }
        _modify {
            if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
            yield &fields.summary
        }
    }

    package var status: StepStatus {
        get { fields.status }
        _modify {
            if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
            yield &fields.status
        }
    }

    package var attempts: Int {
        get { fields.attempts }
        _modify {
            if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
            yield &fields.attempts
        }
    }

    /// Seconds since the Unix epoch when it first started.
    package var startedAt: Double? {
        get { fields.startedAt }
        _modify {
            if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
            yield &fields.startedAt
        }
    }

    /// From the first start to the end (all attempts).
    package var duration: Duration? {
        get { fields.duration }
        _modify {
            if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
            yield &fields.duration
        }
    }

    package var exitCode: Int? {
        get { fields.exitCode }
        _modify {
            if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
            yield &fields.exitCode
        }
    }

    package var httpStatus: Int? {
        get { fields.httpStatus }
        _modify {
            if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
            yield &fields.httpStatus
        }
    }

    package var failure: StepFailure? {
        get { fields.failure }
        _modify {
            if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
            yield &fields.failure
        }
    }

    /// The last lines of the step's stderr (processes) when it failed.
    package var outputTail: String? {
        get { fields.outputTail }
        _modify {
            if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
            yield &fields.outputTail
        }
    }

    /// Order in the workflow, for reports.
    package var order: Int {
        get { fields.order }
        _modify {
            if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
            yield &fields.order
        }
    }

    /// An http step's final URL, redirects, version and timings (its
    /// cookies are not kept in the record).
    package var http: HTTPExchangeInfo? {
        get { fields.http }
        _modify {
            if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
            yield &fields.http
        }
    }

    /// The innermost group around the step (its id), nil at the top.
    package var group: String? {
        get { fields.group }
        _modify {
            if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
            yield &fields.group
        }
    }

    /// A process step's output tails for reports (the last
    /// `ExecutionConfiguration.reportOutputLimit` bytes of each, secrets
    /// masked); nil when reports keep no output.
    package var standardOutput: CapturedText? {
        get { fields.standardOutput }
        _modify {
            if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
            yield &fields.standardOutput
        }
    }

    package var standardError: CapturedText? {
        get { fields.standardError }
        _modify {
            if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
            yield &fields.standardError
        }
    }

    /// A `log` step's message as printed, values filled in.
    package var message: String? {
        get { fields.message }
        _modify {
            if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
            yield &fields.message
        }
    }

    /// Every attempt, when the step started more than once (retries).
    package var attemptLog: [AttemptRecord] {
        get { fields.attemptLog }
        _modify {
            if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
            yield &fields.attemptLog
        }
    }

    /// It failed under `allow-failure`: reported, and the run went on.
    package var allowedFailure: Bool {
        get { fields.allowedFailure }
        _modify {
            if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
            yield &fields.allowedFailure
        }
    }

    /// It failed, and the workflow handled the failure: what handled it
    /// (`allow-failure`, `catch at line 12`, `any 'mirrors' (another lane
    /// succeeded)`). A handled failure is shown, but is no failure of the
    /// run: reports count it apart (docs/reports.md).
    package var handledBy: String? {
        get { fields.handledBy }
        _modify {
            if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
            yield &fields.handledBy
        }
    }

    /// Where a process step ran: `local` or `slurm`; nil for
    /// other steps.
    package var executor: Placement.ExecutorKind? {
        get { fields.executor }
        _modify {
            if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
            yield &fields.executor
        }
    }

    /// The Slurm job that ran it (its last attempt).
    package var slurmJob: String? {
        get { fields.slurmJob }
        _modify {
            if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
            yield &fields.slurmJob
        }
    }

    /// For an `up-to-date` step: the local store or the shared cache.
    package var upToDateFrom: UpToDateSource? {
        get { fields.upToDateFrom }
        _modify {
            if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
            yield &fields.upToDateFrom
        }
    }

    package init(id: String, label: String?, kind: String, summary: String, order: Int) {
        fields = Fields(id: id, kind: kind, summary: summary, status: .pending, attempts: 0, order: order)
        fields.label = label
    }
}

/// One attempt of a step that was tried more than once.
package struct AttemptRecord: Sendable {
    /// 1 for the first.
    package var number: Int
    /// Seconds since the Unix epoch.
    package var startedAt: Double
    package var duration: Duration
    /// `succeeded`, `failed` or `cancelled`.
    package var status: StepStatus
    /// A process's exit code, when the attempt got one.
    package var exitCode: Int?
    /// An HTTP response's status, when the attempt got one.
    package var httpStatus: Int?
    /// Why it failed.
    package var failure: StepFailure?
    /// The last lines of its stderr, when it failed.
    package var outputTail: String?
    /// The wait before the next attempt that the server's `Retry-After`
    /// asked for (429, 503), used instead of `delay`.
    package var retryAfter: Duration?

    /// An attempt that ended: its number, start (seconds since the epoch), length and status.
    package init(number: Int, startedAt: Double, duration: Duration, status: StepStatus) {
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
package struct GroupRecord: Sendable {
    /// The node id with iteration suffixes, as step ids are made.
    package var id: String
    /// The label as written, if any.
    package var label: String?
    /// `parallel`, `race`, `any`, `foreach`, `sequence`, `if`.
    package var kind: String
    /// The group around this one, nil at the top.
    package var parent: String?
    /// How it ended (pending or running while the run goes on).
    package var status: StepStatus
    /// How many times it started (a group's `retry` counts).
    package var attempts: Int
    /// Seconds since the Unix epoch when it first started.
    package var startedAt: Double?
    /// From the first start to the end.
    package var duration: Duration?
    /// Its own failure (a timeout, a list that could not be made); nil when
    /// it failed because a step inside it did.
    package var failure: StepFailure?
    /// Order in the workflow, for reports.
    package var order: Int
    /// It failed under `allow-failure`: reported, and the run went on.
    package var allowedFailure: Bool = false
    /// Its own failure was handled (as `StepRecord.handledBy`).
    package var handledBy: String?
    /// Its thresholds as checked when it ended, in the order written.
    package var thresholds: [ThresholdResult] = []

    /// A group not yet started.
    package init(id: String, label: String?, kind: String, parent: String?, order: Int) {
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
package struct RunError: Error, Sendable, CustomStringConvertible {
    package var stepID: String
    package var kind: FailureKind
    package var message: String
    package var exitCode: Int?
    /// Other failures reported with this one (a keep-going group's, an
    /// ensure's that failed after the chain had failed).
    package var others: [RunError]
    /// The `rethrow` steps that passed it on, each a failed step of its own
    /// that a handler further out handles with it.
    package var passedOnBy: [String] = []

    package init(stepID: String, kind: FailureKind, message: String, exitCode: Int? = nil, others: [RunError] = []) {
        self.stepID = stepID
        self.kind = kind
        self.message = message
        self.exitCode = exitCode
        self.others = others
    }

    package var description: String { "\(stepID): \(message)" }

    /// The steps and groups whose failures this error stands for: its own
    /// and its others', at any depth.
    package var failedIDs: [String] {
        [stepID] + passedOnBy + others.flatMap(\.failedIDs)
    }
}
