package import WorkflowModel

/// The statistics of a label that runs more than once (a step inside
/// `foreach`): how many runs ended, how, with which HTTP
/// statuses, how many a second, and their latencies (from when each was
/// let start to its end, its retries inside) in a histogram.
/// See docs/language.md, 'Load'.
package struct LabelStats: Sendable {
    /// The label, or the step's place (`sh@4:3`) when it has none.
    package var label: String
    /// Runs that ended (succeeded, up to date, or failed).
    package var count = 0
    package var succeeded = 0
    package var failed = 0
    package var failedByKind: [FailureKind: Int] = [:]
    /// For http steps: how many answers of each status.
    package var statuses: [Int: Int] = [:]
    package var latency = LatencyHistogram()
    /// For runs started on a `rate`'s schedule: how late each started
    /// after its due moment (a runner or a `limit` that cannot keep up
    /// shows here); nil when none was scheduled.
    package var lateness: LatencyHistogram?
    /// Wall clock (seconds since the epoch) of the first start and the last end.
    package var firstStart: Double?
    package var lastEnd: Double?
    /// Where the label first ended in the run (reports list labels so).
    package var order: Int
    /// The same over time, per second.
    package var series = LabelSeries()

    package init(label: String, order: Int) {
        self.label = label
        self.order = order
    }

    /// Runs completed per second, over the time from the first start to the last end.
    package var ratePerSecond: Double {
        guard let firstStart, let lastEnd, lastEnd > firstStart else { return 0 }
        return Double(count) / (lastEnd - firstStart)
    }

    /// Adds a run that ended at `end` (seconds since the epoch), `latency`
    /// after it was ready (or due) to start.
    mutating func add(_ record: StepRecord, latency: Duration, lateness: Duration? = nil, end: Double) {
        switch record.status {
        // An up-to-date step did not run: a no-op build has no statistics
        // table of the checks it made (the summary counts them).
        case .upToDate: return
        case .succeeded: succeeded += 1
        case .failed:
            failed += 1
            failedByKind[record.failure?.kind ?? .fail, default: 0] += 1
        default: return
        }
        count += 1
        if let status = record.httpStatus { statuses[status, default: 0] += 1 }
        self.latency.record(latency)
        if let lateness {
            if self.lateness == nil { self.lateness = LatencyHistogram() }
            self.lateness?.record(lateness)
        }
        if let start = record.startedAt { firstStart = min(firstStart ?? start, start) }
        lastEnd = max(lastEnd ?? end, end)
        series.add(end: end, failed: record.status == .failed, latency: latency)
    }

    /// The statistics' key of a step's id: the id without its iteration
    /// suffixes (`fetch[3]` → `fetch`); nil for a step outside any loop.
    package static func key(of id: String) -> String? {
        // Bytes, not characters: `[` and `]` are ASCII.
        guard id.utf8.last == UInt8(ascii: "]"), let open = id.utf8.firstIndex(of: UInt8(ascii: "[")) else { return nil }
        return String(id[..<open])
    }
}
