import Glibc
import PromiseEngine
import RunnerSystem
import WorkflowModel
import WorkflowRun
import JSON

/// `--events PATH|-` (spec §21): one JSON object a line as the run goes
/// (`run-start`, `step-start`, `step-end`, `group-end`, `run-end`). The
/// records it gets are masked by the recorder; what it writes itself
/// (messages, summaries) goes through the run's mask once more. Lines
/// wait in a buffer of at most `flushBytes`, written when it fills and at
/// least once a second (a timer on the event loop), so a run of millions
/// of steps streams with flat memory.
final class EventStream: ExecutionObserver, Sendable {
    private struct State {
        var buffer: [UInt8] = []
        var closed = false
    }

    private let descriptor: Int32
    private let state = Lock(State())
    /// The run's mask, set once the executor exists. In a struct: a bare
    /// function type in the lock's generic state would be re-wrapped in a
    /// reabstraction thunk at each access, and a million events would
    /// nest a million thunks.
    private struct Mask: Sendable {
        var apply: @Sendable (String) -> String
    }

    private let mask = Lock<Mask?>(nil)
    private static let flushBytes = 64 * 1024

    private init(descriptor: Int32) {
        self.descriptor = descriptor
        state.withLock { $0.buffer.reserveCapacity(Self.flushBytes + 4096) }
    }

    /// Opens `path` (created or emptied), or for `-` standard output, which
    /// from then on is the events' alone: what promise-run would print
    /// there goes to standard error.
    static func open(_ path: String) -> Result<EventStream, LiveOutputError> {
        if path == "-" {
            let events = fcntl(1, F_DUPFD_CLOEXEC, 3)
            guard events >= 0, dup2(2, 1) >= 0 else {
                let reason = systemReason(errno)
                return .failure(LiveOutputError(message: "\(Option.events.spec.long) -: cannot set standard output aside: \(reason)"))
            }
            return .success(EventStream(descriptor: events))
        }
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            return .failure(LiveOutputError(message: "\(Option.events.spec.long) \(path): cannot write it: \(systemReason(errno))"))
        }
        return .success(EventStream(descriptor: fd))
    }

    /// Starts the timer that writes what waits at least once a second.
    func startFlushing(on loop: EventLoop = .shared) {
        loop.execute { [self] in tick(loop) }
    }

    private func tick(_ loop: EventLoop) {
        flush()
        guard !state.withLock({ $0.closed }) else { return }
        loop.schedule(after: .seconds(1)) { [self] in tick(loop) }
    }

    /// Masks what the stream writes itself with the run's mask.
    func masking(with mask: @escaping @Sendable (String) -> String) {
        self.mask.withLock { $0 = Mask(apply: mask) }
    }

    private func masked(_ text: String) -> String {
        mask.withLock { $0 }?.apply(text) ?? text
    }

    // MARK: - Events

    func runStarted(workflow: String, file: String) {
        emit("run-start", [("workflow", .string(workflow)), ("file", .string(file))])
    }

    func runEnded(_ result: RunResult, exitCode: Int32) {
        var counts: [StepStatus: Int] = result.omitted.byStatus
        for record in result.records { counts[record.status, default: 0] += 1 }
        var members: [(String, JSONValue)] = [
            ("workflow", .string(result.workflow)), ("status", .string(result.status.reported)),
            ("exitCode", .integer(Int(exitCode))), ("durationSeconds", .decimal(result.duration.seconds, places: 3)),
            ("steps", .object(StepStatus.allCases.compactMap { status in counts[status].map { (status.rawValue, .integer($0)) } })),
        ]
        if let error = result.error {
            members.append(("error", .object([("step", .string(error.stepID)), ("kind", .string(error.kind.rawValue)),
                                               ("message", .string(masked(error.message)))])))
        }
        emit("run-end", members)
    }

    func stepStarted(_ record: StepRecord) {
        emit("step-start", [
            ("id", .string(record.id)), ("label", record.label.map(JSONValue.string) ?? .null), ("kind", .string(record.kind)),
            ("attempt", .integer(record.attempts)), ("summary", .string(masked(record.summary))),
        ])
    }

    func stepFinished(_ record: StepRecord) {
        stepFinished(record, latency: nil, lateness: nil)
    }

    func stepFinished(_ record: StepRecord, latency: Duration?, lateness: Duration?) {
        var members: [(String, JSONValue)] = [
            ("id", .string(record.id)), ("label", record.label.map(JSONValue.string) ?? .null), ("kind", .string(record.kind)),
            ("status", .string(record.status.rawValue)), ("attempt", .integer(record.attempts)),
            ("durationSeconds", record.duration.map { .decimal($0.seconds, places: 6) } ?? .null),
            ("latencySeconds", (latency ?? record.duration).map { .decimal($0.seconds, places: 6) } ?? .null),
        ]
        if let lateness { members.append(("latenessSeconds", .decimal(lateness.seconds, places: 6))) }
        if let status = record.httpStatus { members.append(("httpStatus", .integer(status))) }
        if let exit = record.exitCode { members.append(("exit", .integer(exit))) }
        if let failure = record.failure {
            members.append(("error", .object([("kind", .string(failure.kind.rawValue)), ("message", .string(masked(failure.message)))])))
        }
        emit("step-end", members)
    }

    func groupFinished(_ record: GroupRecord) {
        var members: [(String, JSONValue)] = [
            ("id", .string(record.id)), ("label", record.label.map(JSONValue.string) ?? .null), ("kind", .string(record.kind)),
            ("status", .string(record.status.rawValue)),
            ("durationSeconds", record.duration.map { .decimal($0.seconds, places: 6) } ?? .null),
        ]
        if let failure = record.failure {
            members.append(("error", .object([("kind", .string(failure.kind.rawValue)), ("message", .string(masked(failure.message)))])))
        }
        if !record.thresholds.isEmpty { members.append(("thresholds", .array(record.thresholds.map(JSONReport.threshold)))) }
        emit("group-end", members)
    }

    func log(_ message: String, step id: String) {}

    private func emit(_ event: String, _ members: [(String, JSONValue)]) {
        let line = JSONValue.object([("event", .string(event)), ("time", .string(ReportTime.iso8601(WallClock.now())))] + members)
            .renderedCompact() + "\n"
        let full = state.withLock { state in
            guard !state.closed else { return false }
            state.buffer.append(contentsOf: line.utf8)
            return state.buffer.count >= Self.flushBytes
        }
        if full { flush() }
    }

    /// Writes what waits.
    func flush() {
        // Under the lock: lines reach the file in the order they were made.
        state.withLock { state in
            guard !state.buffer.isEmpty else { return }
            // A reader that went away: the run goes on without it.
            state.buffer.withUnsafeBytes { StandardStreams.write($0, to: descriptor) }
            state.buffer.removeAll(keepingCapacity: true)
        }
    }

    /// Writes what waits and closes the file; later events are dropped.
    func close() {
        flush()
        state.withLock { state in
            guard !state.closed else { return }
            state.closed = true
            _ = Glibc.close(descriptor)
        }
    }
}

/// An `--events` or `--metrics-listen` that cannot be set up: exit 2
/// before anything runs.
struct LiveOutputError: Error, Sendable {
    var message: String
}
