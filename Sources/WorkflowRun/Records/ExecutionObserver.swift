import PromiseEngine
import WorkflowModel

/// What the executor tells the outside (the console, the reports) as the
/// run goes. Called from any thread; calls about one step come in order.
/// Class-bound: the executor passes it along at every step, and an
/// optional class existential is copied with a retain, not through value
/// witnesses (about 700 instructions per request in a run of GETs).
package protocol ExecutionObserver: AnyObject, Sendable {
    /// A step started (or started another attempt): its id and attempt
    /// (1 for the first), for an observer that counts starts and needs
    /// no record (the metrics' running gauge). Always called, before
    /// `stepStarted` when that is.
    func stepBegan(_ id: String, attempt: Int)
    /// A step started (or started another attempt).
    func stepStarted(_ record: StepRecord)
    /// Whether `stepStarted` does anything for a step's attempt `attempt`
    /// (1 for the first) in the group `group` (its record's): when not,
    /// the recorder does not copy and mask the record for it (a console
    /// without a live area, not verbose, shows nothing as a step starts;
    /// a live area shows a load group by its labels, not each iteration),
    /// and a `foreach` or `repeat` asked for its first attempts may leave
    /// its iterations unregistered (`leanIterations`). True unless an
    /// observer says so.
    func showsStart(ofAttempt attempt: Int, inGroup group: String?) -> Bool
    /// A step ended: succeeded, failed, skipped or cancelled.
    func stepFinished(_ record: StepRecord)
    /// A step ended, with what its label's statistics count of it: its
    /// latency (from when it was due, under a `rate`; nil when only its
    /// duration is known) and how late it started (under a `rate`). The
    /// recorder calls this one; by default it is `stepFinished(_:)`.
    func stepFinished(_ record: StepRecord, latency: Duration?, lateness: Duration?)
    /// A group ended, its thresholds (if any) checked (secrets masked).
    func groupFinished(_ record: GroupRecord)
    /// A `log` step's line (secrets already masked).
    func log(_ message: String, step id: String)
    /// Bytes of a download arrived.
    func transfer(step id: String, received: Int64, expected: Int64?)
    /// Something the user should know that fails nothing (secrets masked).
    func warning(_ message: String)
    /// A step's next attempt waits `wait`, as the server's `Retry-After`
    /// asked; `capped` when it asked for longer.
    func retryWaiting(step id: String, for wait: Duration, capped: Bool)
    /// A group that stopped early (fail-fast, a timeout, a cancel) did not
    /// start `count` of its iterations: one line for them all.
    func iterationsNotStarted(group id: String, count: Int)
    /// A load group (a `repeat`, or a `foreach` with a `rate`) ended: how
    /// far it came (its last progress line).
    func loadGroupEnded(_ progress: LoadProgress)
}

extension ExecutionObserver {
    package func stepBegan(_ id: String, attempt: Int) {}
    package func showsStart(ofAttempt attempt: Int, inGroup group: String?) -> Bool { true }
    package func stepFinished(_ record: StepRecord, latency: Duration?, lateness: Duration?) { stepFinished(record) }
    package func groupFinished(_ record: GroupRecord) {}
    package func transfer(step id: String, received: Int64, expected: Int64?) {}
    package func warning(_ message: String) {}
    package func iterationsNotStarted(group id: String, count: Int) {}
    package func loadGroupEnded(_ progress: LoadProgress) {}
    package func retryWaiting(step id: String, for wait: Duration, capped: Bool) {}
}
