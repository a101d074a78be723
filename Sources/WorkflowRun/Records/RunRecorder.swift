import PromiseEngine
import RunnerSystem
import WorkflowModel

/// The record of every step of a run, kept up to date as steps start and
/// end, and passed on to the observer. Every step of the workflow is
/// registered before anything runs, so a step that never runs is still
/// reported (as skipped).
final class RunRecorder: Sendable {
    /// A class, so that the table holds a reference per step: a run of
    /// 100,000 iterations grows and copies a table of pointers, not of
    /// records.
    private final class Entry: @unchecked Sendable {
        // @unchecked: read and written only under the recorder's lock.
        var record: StepRecord
        /// Sort key: positions in the workflow, with iteration numbers.
        let key: [Int]
        /// When the current attempt started (clock and wall).
        var attemptStarted: Duration?
        var attemptWall: Double = 0
        /// When its first attempt started, until it ends: `{{label.duration}}`
        /// and the record's duration cover every attempt.
        var firstStarted: Duration?
        /// Found up to date: its success is reported as `up-to-date`.
        var upToDate: UpToDateSource?
        /// What the step had produced when it was cancelled (output so
        /// far, its Slurm job): a cancelled or timed-out step's record
        /// keeps it.
        var cancelledWith: StepResult?

        init(record: StepRecord, key: [Int]) {
            self.record = record
            self.key = key
        }
    }

    /// A group's record, with its first start on the run's clock.
    private final class GroupEntry: @unchecked Sendable {
        // @unchecked: read and written only under the recorder's lock.
        var record: GroupRecord
        let key: [Int]
        var firstStarted: Duration?

        init(record: GroupRecord, key: [Int]) {
            self.record = record
            self.key = key
        }
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var groups: [String: GroupEntry] = [:]
        var nextOrder = 0
        /// Successes kept so far, and those counted instead of kept.
        var keptSuccesses = 0
        var omitted = OmittedRecords()
        /// Per label that runs more than once.
        var stats: [String: LabelStats] = [:]
        /// Steps of iterations known to come but not registered yet.
        var planned = 0
        /// Per label, how its step last ended in this run (the store's
        /// `last-results.json`).
        var lastResults: [String: LastResult] = [:]
        /// The steps found up to date, in that order, while the run may
        /// still be a no-op (what its no-op record shows again).
        var upToDateOrder: [String] = []
    }

    private let state = Lock(State())
    private let observer: (any ExecutionObserver)?
    private let secrets: Secrets
    private let clock: any PromiseClock
    /// How many bytes of each output stream a process step's record keeps
    /// (0: none).
    let outputLimit: Int

    /// With no report to write, a run keeps this many successes and counts
    /// the rest (nil: every record is kept).
    let successesKept: Int?

    init(
        observer: (any ExecutionObserver)?, secrets: Secrets, clock: any PromiseClock, outputLimit: Int = 0,
        successesKept: Int? = nil
    ) {
        self.observer = observer
        self.secrets = secrets
        self.clock = clock
        self.outputLimit = outputLimit
        self.successesKept = successesKept
    }

    func register(
        id: String, label: String?, kind: String, summary: String, key: [Int], group: String? = nil,
        executor: Placement.ExecutorKind? = nil
    ) {
        state.withLock { state in
            guard state.entries[id] == nil else { return }
            var record = StepRecord(id: id, label: label, kind: kind, summary: summary, order: state.nextOrder)
            record.status = .pending
            record.group = group
            record.executor = executor
            state.nextOrder += 1
            state.entries[id] = Entry(record: record, key: key)
        }
    }

    func registerGroup(id: String, label: String?, kind: String, parent: String?, key: [Int]) {
        state.withLock { state in
            guard state.groups[id] == nil else { return }
            let record = GroupRecord(id: id, label: label, kind: kind, parent: parent, order: state.nextOrder)
            state.nextOrder += 1
            state.groups[id] = GroupEntry(record: record, key: key)
        }
    }

    /// Steps of iterations known to come, registered as each starts: the
    /// progress counts them (`[done/total]`). Negative once registered.
    func plan(_ steps: Int) {
        state.withLock { $0.planned += steps }
    }

    /// Steps of iterations that never started, counted as skipped instead
    /// of listed (past the first iterations of a long foreach).
    func countSkipped(_ steps: Int) {
        guard steps > 0 else { return }
        state.withLock { $0.omitted.add(.skipped, count: steps) }
    }

    /// Drops a record (a foreach body's template once the iterations are known).
    func unregister(id: String) {
        state.withLock { state in
            state.entries.removeValue(forKey: id)
            state.groups.removeValue(forKey: id)
        }
    }

    /// A step starts an attempt. `resolved`: the step with its values
    /// filled in, whose summary replaces one written with `{{ }}` (what
    /// `-v` and the reports show is what runs).
    func start(_ id: String, resolved: ResolvedStep? = nil) {
        let now = clock.now()
        let wall = WallClock.now()
        let (started, templated, attempt): (StepRecord?, Entry?, Int) = state.withLock { state in
            guard let entry = state.entries[id] else { return (nil, nil, 0) }
            entry.record.status = .running
            entry.record.attempts += 1
            entry.cancelledWith = nil
            if entry.record.startedAt == nil { entry.record.startedAt = wall }
            entry.attemptStarted = now
            entry.attemptWall = wall
            if entry.firstStarted == nil { entry.firstStarted = now }
            let templated = resolved != nil && ASCIIByte.occurs(UInt8(ascii: "{"), in: entry.record.summary) ? entry : nil
            // A copy of the record only for an observer that shows it.
            guard observer?.showsStart(ofAttempt: entry.record.attempts, inGroup: entry.record.group) == true else {
                return (nil, templated, entry.record.attempts)
            }
            return (entry.record, templated, entry.record.attempts)
        }
        if attempt > 0 { observer?.stepBegan(id, attempt: attempt) }
        var record = started
        // Only a step written with `{{ }}` pays for a summary of its own,
        // made outside the lock (and stored through the entry, not looked
        // up again).
        if let templated, let resolved {
            let summary = StepSummary.describe(resolved)
            state.withLock { _ in templated.record.summary = summary }
            record?.summary = summary
        }
        if let record { observer?.stepStarted(masked(record)) }
    }

    /// An attempt of a step that may be retried ended (the step's record
    /// keeps every attempt when there was more than one).
    func attemptEnded(
        _ id: String, status: StepStatus, result: StepResult? = nil, failure: StepFailure? = nil,
        retryAfter: Duration? = nil
    ) {
        let now = clock.now()
        let produced = result ?? failure?.result
        var attempt: AttemptRecord?
        state.withLock { state in
            guard let entry = state.entries[id], let began = entry.attemptStarted else { return }
            attempt = AttemptRecord(number: entry.record.attempts, startedAt: entry.attemptWall, duration: now - began, status: status)
        }
        guard var attempt else { return }
        attempt.exitCode = produced?.exitCode
        attempt.httpStatus = produced?.status
        attempt.retryAfter = retryAfter
        if let failure { (attempt.failure, attempt.outputTail) = described(failure, produced: produced) }
        let made = attempt
        state.withLock { state in state.entries[id]?.record.attemptLog.append(made) }
    }

    /// How long since the step first started (all its attempts so far).
    func elapsed(_ id: String, at now: Duration? = nil) -> Duration? {
        let now = now ?? clock.now()
        return state.withLock { $0.entries[id]?.firstStarted }.map { now - $0 }
    }

    /// The workflow handled these failures (a `catch` that did not
    /// rethrow, `allow-failure` around them, an `any` another lane won):
    /// each failed step or group among `ids` says what handled it, the
    /// first handler to do so.
    func markHandled(_ ids: [String], by handler: String) {
        state.withLock { state in
            for id in ids {
                if let entry = state.entries[id], entry.record.status == .failed, entry.record.handledBy == nil {
                    entry.record.handledBy = handler
                }
                if let entry = state.groups[id], entry.record.status == .failed, entry.record.handledBy == nil {
                    entry.record.handledBy = handler
                }
            }
        }
    }

    /// What a step had produced when it was cancelled.
    func cancelled(_ id: String, with result: StepResult) {
        state.withLock { state in state.entries[id]?.cancelledWith = result }
    }

    /// A step found up to date (its stored result stands for a run), in
    /// the local store or the shared cache.
    func markUpToDate(_ id: String, from source: UpToDateSource) {
        let noOpSoFar = DependencyJournal.shared.isRecording
        state.withLock { state in
            state.entries[id]?.upToDate = source
            if noOpSoFar { state.upToDateOrder.append(id) }
        }
    }

    /// The steps found up to date, in order, while the run was a no-op so far.
    func upToDateOrder() -> [String] {
        state.withLock { $0.upToDateOrder }
    }

    /// A `log` step's message as printed.
    func logged(_ id: String, message: String) {
        state.withLock { state in state.entries[id]?.record.message = message }
    }

    /// A group starts (or starts another attempt).
    func startGroup(_ id: String) {
        let now = clock.now()
        let wall = WallClock.now()
        state.withLock { state in
            guard let entry = state.groups[id] else { return }
            entry.record.status = .running
            entry.record.attempts += 1
            entry.record.handledBy = nil
            if entry.record.startedAt == nil {
                entry.record.startedAt = wall
                entry.firstStarted = now
            }
        }
    }

    /// A group's thresholds, checked as it ended.
    func checkedThresholds(_ results: [ThresholdResult], group id: String) {
        state.withLock { state in state.groups[id]?.record.thresholds = results }
    }

    /// A group ended; `failure` only when the failure is the group's own.
    func finishGroup(_ id: String, status: StepStatus, failure: StepFailure? = nil, allowedFailure: Bool = false) {
        let now = clock.now()
        let ended: GroupRecord? = state.withLock { state in
            guard let entry = state.groups[id] else { return nil }
            guard entry.record.status == .pending || entry.record.status == .running else { return nil }
            entry.record.status = status
            entry.record.allowedFailure = allowedFailure
            if allowedFailure { entry.record.handledBy = entry.record.handledBy ?? "allow-failure" }
            entry.record.duration = entry.firstStarted.map { now - $0 }
            if var failure {
                failure.message = secrets.mask(failure.message)
                failure.result = nil
                entry.record.failure = failure
            } else {
                entry.record.failure = nil
            }
            return entry.record
        }
        if let ended { observer?.groupFinished(ended) }
    }

    /// A step ended. `result` and `failure` fill in exit code, status, error.
    func finish(
        _ id: String, status: StepStatus, result: StepResult? = nil, failure: StepFailure? = nil,
        allowedFailure: Bool = false, latency: Duration? = nil, lateness: Duration? = nil, at ending: Duration? = nil
    ) {
        let now = ending ?? clock.now()
        let record: StepRecord? = state.withLock { state in
            // One lookup: the entry is read, and maybe dropped, by index.
            guard let index = state.entries.index(forKey: id) else { return nil }
            let entry = state.entries.values[index]
            let elapsed = entry.firstStarted.map { now - $0 }
            entry.firstStarted = nil
            guard entry.record.status == .pending || entry.record.status == .running else { return nil }
            entry.record.status = status == .succeeded && entry.upToDate != nil ? .upToDate : status
            entry.record.upToDateFrom = status == .succeeded ? entry.upToDate : nil
            entry.record.duration = elapsed ?? (status == .skipped ? nil : .zero)
            let produced = result ?? failure?.result ?? entry.cancelledWith
            entry.cancelledWith = nil
            if entry.record.attemptLog.count < 2 { entry.record.attemptLog = [] }
            fill(&entry.record, produced: produced, failure: failure, allowedFailure: allowedFailure)
            let record = entry.record
            if account(record, latency: latency, lateness: lateness, in: &state) {
                state.entries.remove(at: index)
                state.omitted.add(record)
            }
            return record
        }
        if let record { observer?.stepFinished(masked(record), latency: latency, lateness: lateness) }
    }

    /// A step of an iteration that was never registered ended (a success
    /// of it would be counted, not kept, and nothing watches it start:
    /// `WorkflowExecutor.leanIterations`). It counts as `finish`
    /// counts it; a record is kept only for a step that did not succeed
    /// while its label still keeps those, and made for the observer.
    func finishUnregistered(
        _ step: UnregisteredStep, status: StepStatus, result: StepResult? = nil, failure: StepFailure? = nil,
        allowedFailure: Bool = false, startedAt: Double?, duration: Duration?,
        latency: Duration? = nil, lateness: Duration? = nil
    ) {
        var record = StepRecord(id: step.id, label: step.label, kind: step.kind, summary: step.summary, order: 0)
        record.status = status
        record.group = step.group
        record.executor = step.executor
        record.startedAt = startedAt
        record.attempts = startedAt == nil ? 0 : 1
        record.duration = duration
        fill(&record, produced: result ?? failure?.result, failure: failure, allowedFailure: allowedFailure)
        let made = record
        state.withLock { state in
            if step.planned { state.planned -= 1 }
            if account(made, statsKey: step.statsKey, latency: latency, lateness: lateness, in: &state) {
                state.omitted.add(made)
            } else {
                var kept = made
                kept.order = state.nextOrder
                state.nextOrder += 1
                state.entries[step.id] = Entry(record: kept, key: step.key)
            }
        }
        observer?.stepFinished(masked(made), latency: latency, lateness: lateness)
    }

    /// Fills in what a step's end says: exit code, HTTP status and
    /// exchange, Slurm job, output tails, failure (masked).
    private func fill(_ record: inout StepRecord, produced: StepResult?, failure: StepFailure?, allowedFailure: Bool) {
        record.allowedFailure = allowedFailure
        record.handledBy = allowedFailure && record.status == .failed ? "allow-failure" : nil
        record.exitCode = produced?.exitCode
        record.httpStatus = produced?.status
        if let job = produced?.slurmJob { record.slurmJob = job }
        if var http = produced?.http {
            if !http.cookies.isEmpty { http.cookies = [] }
            record.http = http
        } else {
            record.http = nil
        }
        // An earlier run of the step (a group's retry) leaves nothing.
        record.failure = nil
        record.outputTail = nil
        record.standardOutput = nil
        record.standardError = nil
        if outputLimit > 0 {
            if let stdout = produced?.stdout { record.standardOutput = tail(stdout) }
            if let stderr = produced?.stderr { record.standardError = tail(stderr) }
        }
        if let failure { (record.failure, record.outputTail) = described(failure, produced: produced) }
    }

    /// A failure as a record keeps it: its message masked, without the
    /// result it carried, and the last lines of standard error (masked).
    private func described(_ failure: StepFailure, produced: StepResult?) -> (StepFailure, outputTail: String?) {
        var failure = failure
        failure.message = secrets.mask(failure.message)
        failure.result = nil
        var tail: String?
        if let stderr = produced?.stderr?.text, !stderr.isEmpty { tail = Self.lastLines(of: secrets.mask(stderr), count: 10) }
        return (failure, tail)
    }

    /// Adds an ended step to its label's statistics; true when its record
    /// is counted instead of kept (under the lock).
    private func account(
        _ record: StepRecord, statsKey: String? = nil, latency: Duration?, lateness: Duration?,
        in state: inout State
    ) -> Bool {
        let succeeded = record.status == .succeeded || record.status == .upToDate
        if let ended = LastResult.of(record) {
            // One lookup: the first run of a label added to `none` is itself.
            state.lastResults[ended.label, default: .none].add(ended.result)
        }
        // Statistics per label; past 1,000 runs of a label, its records
        // are kept only for its first 1,000 failures: millions
        // of requests hold memory flat.
        if let key = statsKey ?? LabelStats.key(of: record.id) {
            // One lookup: added to, and its counts read, in place. Not
            // `stats[key, default:]`: its default, a closure over the key,
            // was two allocations a request.
            var index = state.stats.index(forKey: key)
            if index == nil {
                state.stats[key] = LabelStats(label: key, order: state.stats.count)
                index = state.stats.index(forKey: key)
            }
            func add(_ stats: inout LabelStats) -> (count: Int, failed: Int) {
                stats.add(record, latency: latency ?? record.duration ?? .zero, lateness: lateness, end: WallClock.now())
                return (stats.count, stats.failed)
            }
            let counts = add(&state.stats.values[index!])
            if counts.count > Self.recordsPerLabel,
                succeeded || (record.status == .failed && counts.failed > Self.recordsPerLabel)
            {
                return true
            }
        }
        // A success past the first ones is counted, not kept, when no
        // report will read it (the console shows only the steps that did
        // not succeed once there are many).
        if let kept = successesKept, succeeded {
            if state.keptSuccesses >= kept { return true }
            state.keptSuccesses += 1
        }
        return false
    }

    /// Whether a success of the steps of statistics key `key` would be
    /// counted, not kept: they ran as many times as a label keeps records
    /// of, or the run keeps no more successes (no report to write). Once
    /// true, true for the rest of the run.
    func isPastKeptRecords(_ key: String) -> Bool {
        state.withLock { state in
            if let kept = successesKept, state.keptSuccesses >= kept { return true }
            return (state.stats[key]?.count ?? 0) >= Self.recordsPerLabel
        }
    }

    /// Per label, how its step last ended in this run (those that ran).
    func lastResults() -> [String: LastResult] {
        state.withLock { $0.lastResults }
    }

    /// The successes counted instead of kept.
    func omitted() -> OmittedRecords {
        state.withLock { $0.omitted }
    }

    /// A label keeps the records of its first this many runs (and of its
    /// first this many failures).
    static let recordsPerLabel = 1_000

    /// The statistics of every label that ran more than once, in the order
    /// they first ended.
    func labelStats() -> [LabelStats] {
        state.withLock { state in state.stats.values.filter { $0.count > 1 }.sorted { $0.order < $1.order } }
    }

    /// Marks steps and groups that never started as skipped (those
    /// already ended stay).
    func skip(_ ids: [String], reason: String? = nil) {
        for id in ids {
            let (step, group): (Bool, Bool) = state.withLock {
                ($0.entries[id]?.record.status == .pending, $0.groups[id]?.record.status == .pending)
            }
            if step {
                if let reason { state.withLock { $0.entries[id]?.record.message = reason } }
                finish(id, status: .skipped)
            }
            if group { finishGroup(id, status: .skipped) }
        }
    }

    /// Ends what is left: never started → skipped; still running → cancelled.
    func closeAll() {
        /// What ends an open record: nil when it already ended.
        func closing(_ status: StepStatus) -> StepStatus? {
            switch status {
            case .pending: return .skipped
            case .running: return .cancelled
            default: return nil
            }
        }
        let (steps, groups) = state.withLock { state in
            (
                state.entries.values.compactMap { entry in closing(entry.record.status).map { (entry.record.id, $0) } },
                state.groups.values.compactMap { entry in closing(entry.record.status).map { (entry.record.id, $0) } }
            )
        }
        for (id, status) in steps.sorted(by: { $0.0 < $1.0 }) { finish(id, status: status) }
        for (id, status) in groups { finishGroup(id, status: status) }
    }

    /// Every group record, in workflow order.
    func groups() -> [GroupRecord] {
        let entries = state.withLock { state in
            state.groups.values.sorted { $0.key.lexicographicallyPrecedes($1.key) }
        }
        return entries.map { entry in
            var record = state.withLock { _ in entry.record }
            if var failure = record.failure {
                failure.message = secrets.mask(failure.message)
                record.failure = failure
            }
            return record
        }
    }

    /// The last `outputLimit` bytes of `text`, cut at a character
    /// boundary, secrets masked before the cut (a secret across the cut
    /// leaves no piece of itself).
    private func tail(_ captured: CapturedText) -> CapturedText {
        // A stream whose beginning was dropped (the process kept its last
        // MiB) starts at a cut: marked for the mask, so a secret's end
        // there is masked too, then unmarked.
        var text = secrets.mask(captured.truncated ? "…" + captured.text : captured.text)
        if captured.truncated, text.hasPrefix("…") { text.removeFirst() }
        let bytes = text.utf8.count
        guard bytes > outputLimit else {
            return CapturedText(text: text, truncated: captured.truncated, totalBytes: captured.totalBytes)
        }
        var index = text.utf8.startIndex
        index = text.utf8.index(index, offsetBy: bytes - outputLimit)
        // Forward to the start of a character.
        while index < text.utf8.endIndex, (text.utf8[index] & 0xC0) == 0x80 {
            index = text.utf8.index(after: index)
        }
        return CapturedText(text: String(Substring(text.utf8[index...])), truncated: true, totalBytes: captured.totalBytes)
    }

    /// How many steps the run has (so far known: foreach bodies count once
    /// until their list is known).
    var count: Int { state.withLock { $0.entries.count + $0.omitted.count + max(0, $0.planned) } }

    func status(of id: String) -> StepStatus? {
        state.withLock { $0.entries[id]?.record.status }
    }

    /// Every record, in workflow order (iterations in order).
    func records() -> [StepRecord] {
        // Entries are references: sorting them moves pointers; the records
        // are copied once, into an array of the right size.
        let entries = state.withLock { state in
            state.entries.values.sorted { $0.key.lexicographicallyPrecedes($1.key) }
        }
        var records: [StepRecord] = []
        records.reserveCapacity(entries.count)
        for entry in entries {
            records.append(masked(state.withLock { _ in entry.record }))
        }
        return records
    }

    /// Every text of a record with secrets masked, on its way to a report
    /// or the console: the summary (registered before secrets are known),
    /// the final URL (a secret in a query), messages, tails, attempts.
    private func masked(_ record: StepRecord) -> StepRecord {
        // A run with no secret (most) passes records on as they are.
        guard !secrets.isEmpty else { return record }
        var record = record
        record.summary = secrets.mask(record.summary)
        if let message = record.message { record.message = secrets.mask(message) }
        if let tail = record.outputTail { record.outputTail = secrets.mask(tail) }
        if var failure = record.failure {
            failure.message = secrets.mask(failure.message)
            record.failure = failure
        }
        if var http = record.http {
            http.url = secrets.mask(http.url)
            record.http = http
        }
        for index in record.attemptLog.indices {
            if let tail = record.attemptLog[index].outputTail { record.attemptLog[index].outputTail = secrets.mask(tail) }
            if var failure = record.attemptLog[index].failure {
                failure.message = secrets.mask(failure.message)
                record.attemptLog[index].failure = failure
            }
        }
        return record
    }

    /// The last `count` lines of `text` (broken at LF and CR LF), joined by LF.
    static func lastLines(of text: String, count: Int) -> String {
        var lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
        if lines.last?.isEmpty == true { lines.removeLast() }
        return lines.suffix(count).joined(separator: "\n")
    }
}

/// The steps a run counted instead of keeping their records (successes,
/// with no report to write): how many of each status, and their time.
package struct OmittedRecords: Sendable, Equatable {
    /// How many of each status, by the status's place in `StepStatus`
    /// (counted at every step past the kept ones: no hashing).
    private var counts = [Int](repeating: 0, count: Self.statuses.count)
    package var duration: Duration = .zero

    package init() {}

    /// `count` up-to-date steps, taking no time (a run shown from its
    /// no-op record).
    package init(upToDate count: Int) {
        add(.upToDate, count: count)
    }

    /// How many of each status (those with any).
    package var byStatus: [StepStatus: Int] {
        var result: [StepStatus: Int] = [:]
        for (status, count) in zip(Self.statuses, counts) where count > 0 { result[status] = count }
        return result
    }

    package var count: Int { counts.reduce(0, +) }

    mutating func add(_ record: StepRecord) {
        add(record.status, count: 1)
        duration += record.duration ?? .zero
    }

    mutating func add(_ status: StepStatus, count: Int) {
        counts[Self.place(of: status)] += count
    }

    private static let statuses = StepStatus.allCases

    private static func place(of status: StepStatus) -> Int {
        statuses.firstIndex(of: status) ?? 0
    }
}

/// What a step's record says of it before it runs, for a step the
/// recorder finishes without having registered it.
struct UnregisteredStep: Sendable {
    var id: String
    var label: String?
    var kind: String
    var summary: String
    var key: [Int]
    var group: String?
    var executor: Placement.ExecutorKind?
    /// Its iteration was counted in the plan (the list's length known).
    var planned: Bool
    /// Its statistics' key (`LabelStats.key(of: id)`), known beforehand.
    var statsKey: String? = nil
}
