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

        init(record: StepRecord, key: [Int]) {
            self.record = record
            self.key = key
        }
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var nextOrder = 0
    }

    private let state = Lock(State())
    private let observer: (any ExecutionObserver)?
    private let secrets: Secrets
    private let clock: any PromiseClock
    private let started = Lock<[String: Duration]>([:])

    init(observer: (any ExecutionObserver)?, secrets: Secrets, clock: any PromiseClock) {
        self.observer = observer
        self.secrets = secrets
        self.clock = clock
    }

    func register(id: String, label: String?, kind: String, summary: String, key: [Int]) {
        state.withLock { state in
            guard state.entries[id] == nil else { return }
            var record = StepRecord(id: id, label: label, kind: kind, summary: summary, order: state.nextOrder)
            record.status = .pending
            state.nextOrder += 1
            state.entries[id] = Entry(record: record, key: key)
        }
    }

    /// Drops a record (a foreach body's template once the iterations are known).
    func unregister(id: String) {
        _ = state.withLock { $0.entries.removeValue(forKey: id) }
    }

    /// A step starts an attempt.
    func start(_ id: String) {
        let now = clock.now()
        let wall = WallClock.now()
        let record: StepRecord? = state.withLock { state in
            guard let entry = state.entries[id] else { return nil }
            entry.record.status = .running
            entry.record.attempts += 1
            if entry.record.startedAt == nil { entry.record.startedAt = wall }
            return entry.record
        }
        started.withLock { started in
            if started[id] == nil { started[id] = now }
        }
        if let record { observer?.stepStarted(masked(record)) }
    }

    /// A step ended. `result` and `failure` fill in exit code, status, error.
    func finish(_ id: String, status: StepStatus, result: StepResult? = nil, failure: StepFailure? = nil) {
        let elapsed: Duration? = started.withLock { started in
            started.removeValue(forKey: id).map { clock.now() - $0 }
        }
        let record: StepRecord? = state.withLock { state in
            guard let entry = state.entries[id] else { return nil }
            guard entry.record.status == .pending || entry.record.status == .running else { return nil }
            entry.record.status = status
            entry.record.duration = elapsed ?? (status == .skipped ? nil : .zero)
            let produced = result ?? failure?.result
            entry.record.exitCode = produced?.exitCode
            entry.record.httpStatus = produced?.status
            if var http = produced?.http {
                if !http.cookies.isEmpty { http.cookies = [] }
                entry.record.http = http
            } else {
                entry.record.http = nil
            }
            // An earlier run of the step (a group's retry) leaves nothing.
            entry.record.failure = nil
            entry.record.outputTail = nil
            if var failure {
                failure.message = secrets.mask(failure.message)
                failure.result = nil
                entry.record.failure = failure
                if let stderr = produced?.stderr?.text, !stderr.isEmpty {
                    entry.record.outputTail = secrets.mask(Self.lastLines(of: stderr, count: 10))
                }
            }
            return entry.record
        }
        if let record { observer?.stepFinished(masked(record)) }
    }

    /// Marks steps that never started as skipped (those already ended stay).
    func skip(_ ids: [String]) {
        for id in ids {
            let pending: Bool = state.withLock { $0.entries[id]?.record.status == .pending }
            if pending { finish(id, status: .skipped) }
        }
    }

    /// Ends what is left: never started → skipped; still running → cancelled.
    func closeAll() {
        let open: [(String, StepStatus)] = state.withLock { state in
            state.entries.values.compactMap { entry in
                switch entry.record.status {
                case .pending: return (entry.record.id, .skipped)
                case .running: return (entry.record.id, .cancelled)
                default: return nil
                }
            }
        }
        for (id, status) in open.sorted(by: { $0.0 < $1.0 }) { finish(id, status: status) }
    }

    /// How many steps the run has (so far known: foreach bodies count once
    /// until their list is known).
    var count: Int { state.withLock { $0.entries.count } }

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

    /// The summary is registered before secrets are known: mask it on the way out.
    private func masked(_ record: StepRecord) -> StepRecord {
        var record = record
        record.summary = secrets.mask(record.summary)
        return record
    }

    static func lastLines(of text: String, count: Int) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.last?.isEmpty == true { lines.removeLast() }
        return lines.suffix(count).joined(separator: "\n")
    }
}
