import Glibc
import PromiseEngine
import WorkflowModel
import WorkflowRun

/// What `--metrics-listen` serves, counted as steps end: per
/// label (a repeated step's label, as the statistics name it), runs by
/// status, HTTP responses by code, a latency and a lateness histogram;
/// the steps running and the run's status. A fixed size per label,
/// whatever the number of steps.
/// See docs/command.md, 'Watching a run'.
final class RunMetrics: ExecutionObserver, Sendable {
    /// One label's series.
    struct Series: Sendable {
        var runs: [StepStatus: UInt64] = [:]
        var responses: [Int: UInt64] = [:]
        var latency = BucketCounts()
        var lateness: BucketCounts?
    }

    /// What a scrape reads, copied under the lock.
    struct Snapshot: Sendable {
        /// Nil before the run starts (the workflow is still being read).
        var workflow: String?
        /// Labels in the order they first ended.
        var labels: [(label: String, series: Series)]
        var running: Int
        /// `running`, then the run's status as the reports say it.
        var status: String
    }

    private struct State {
        var series: [String: Series] = [:]
        var order: [String] = []
        var running = 0
        var status = "running"
    }

    private let state = Lock(State())
    let workflow: String

    init(workflow: String) {
        self.workflow = workflow
    }

    /// The run's statuses, each a series of the status gauge.
    static let statuses = ["running", "succeeded", "failed", "timed-out", "interrupted"]

    // The running gauge counts first attempts that started and steps that
    // ended having started.
    func stepBegan(_ id: String, attempt: Int) {
        guard attempt == 1 else { return }
        state.withLock { $0.running += 1 }
    }

    /// No record needed at a start: the recorder copies and masks none
    /// for this observer (a load test starts thousands a second).
    func showsStart(ofAttempt attempt: Int, inGroup group: String?) -> Bool { false }

    func stepStarted(_ record: StepRecord) {}

    func stepFinished(_ record: StepRecord) {
        stepFinished(record, latency: nil, lateness: nil)
    }

    func stepFinished(_ record: StepRecord, latency: Duration?, lateness: Duration?) {
        let label = LabelStats.key(of: record.id) ?? record.id
        let measured = record.status == .skipped ? nil : latency ?? record.duration
        state.withLock { state in
            if record.attempts > 0 { state.running = max(0, state.running - 1) }
            if state.series[label] == nil { state.order.append(label) }
            state.series[label, default: Series()].add(record, latency: measured, lateness: lateness)
        }
    }

    func log(_ message: String, step id: String) {}

    /// The run ended with `status` (as the reports say it).
    func ended(_ status: String) {
        state.withLock { $0.status = status }
    }

    func snapshot() -> Snapshot {
        state.withLock { state in
            Snapshot(
                workflow: workflow, labels: state.order.compactMap { label in state.series[label].map { (label, $0) } },
                running: state.running, status: state.status)
        }
    }
}

extension RunMetrics.Series {
    mutating func add(_ record: StepRecord, latency: Duration?, lateness: Duration?) {
        runs[record.status, default: 0] += 1
        if let code = record.httpStatus { responses[code, default: 0] += 1 }
        if let latency { self.latency.record(latency) }
        if let lateness {
            if self.lateness == nil { self.lateness = BucketCounts() }
            self.lateness?.record(lateness)
        }
    }
}

/// A Prometheus histogram's buckets, from 1 ms to 60 s: twelve to a
/// doubling (each bound 6% above the last, so a quantile read from them,
/// `histogram_quantile`, is within 6% of the true one), counted
/// per bucket and made cumulative when shown.
struct BucketCounts: Sendable {
    /// The upper bounds, in microseconds: 1 ms × 2^(k/12) up to 60 s.
    static let bounds: [Int64] = {
        var bounds: [Int64] = []
        var step = 0
        while true {
            let bound = Int64((1000 * pow(2, Double(step) / 12)).rounded())
            if bound >= 60_000_000 { break }
            bounds.append(bound)
            step += 1
        }
        bounds.append(60_000_000)
        return bounds
    }()

    /// Per bucket (the last: above 60 s).
    private(set) var counts = [UInt64](repeating: 0, count: bounds.count + 1)
    private(set) var count: UInt64 = 0
    /// In seconds.
    private(set) var sum: Double = 0

    mutating func record(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let microseconds = max(0, seconds * 1_000_000 + attoseconds / 1_000_000_000_000)
        // The first bound at or above the value (`le`).
        var low = 0
        var high = Self.bounds.count
        while low < high {
            let middle = (low + high) / 2
            if Self.bounds[middle] < microseconds { low = middle + 1 } else { high = middle }
        }
        counts[low] += 1
        count += 1
        sum += Double(microseconds) / 1_000_000
    }
}
