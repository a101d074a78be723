import CommandLineOptions
import Glibc
import JSON
import PromiseEngine
import Reports
import RunnerSystem
import WorkflowModel
import WorkflowRun

/// `--events PATH|-`: one JSON object a line as the run goes
/// (`run-start`, `step-start`, `step-end`, `group-end`, `run-end`). The
/// records it gets are masked by the recorder; what it writes itself
/// (messages, summaries) goes through the run's mask once more. Lines
/// wait in a buffer of at most `flushBytes`, written when it fills and at
/// least once a second (a timer on the event loop), so a run of millions
/// of steps streams with flat memory.
/// See docs/command.md, 'Watching a run'.
final class EventStream: ExecutionObserver, Sendable {
    private struct State {
        var buffer: [UInt8] = []
        var closed = false
    }

    private let descriptor: Int32
    private let state = Lock(State())

    /// The second buffer (empty, its capacity kept), swapped with the
    /// first at each write; and whether the file is still open.
    private struct Writer {
        var spare: [UInt8] = []
        var open = true
    }

    private let writer = Lock(Writer())
    /// The run's mask, set once the executor exists. In a struct: a bare
    /// function type in the lock's generic state would be re-wrapped in a
    /// reabstraction thunk at each access, and a million events would
    /// nest a million thunks.
    private struct Mask: Sendable {
        var apply: @Sendable (String) -> String
    }

    private let mask = Lock<Mask?>(nil)
    /// The last time written, quoted, and its millisecond: lines within
    /// one millisecond share it.
    private let lastTime = Lock<(millisecond: Int, json: [UInt8])>((-1, []))
    private static let flushBytes = 64 * 1024

    private init(descriptor: Int32) {
        self.descriptor = descriptor
        state.withLock { $0.buffer.reserveCapacity(Self.flushBytes + 4096) }
        writer.withLock { $0.spare.reserveCapacity(Self.flushBytes + 4096) }
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
        emit("run-start") { line in
            line.add("workflow", workflow)
            line.add("file", file)
        }
    }

    func runEnded(_ result: RunResult, exitCode: Int32) {
        var counts: [StepStatus: Int] = result.omitted.byStatus
        for record in result.records { counts[record.status, default: 0] += 1 }
        emit("run-end") { line in
            line.add("workflow", result.workflow)
            line.add("status", result.status.reported)
            line.add("exitCode", Int(exitCode))
            line.add("durationSeconds", result.duration.seconds, places: 3)
            line.add("steps", .object(StepStatus.allCases.compactMap { status in counts[status].map { (status.rawValue, .integer($0)) } }))
            if let error = result.error {
                line.add(
                    "error",
                    .object([
                        ("step", .string(error.stepID)), ("kind", .string(error.kind.rawValue)),
                        ("message", .string(masked(error.message))),
                    ]))
            }
        }
    }

    func stepStarted(_ record: StepRecord) {
        emit("step-start") { line in
            line.add("id", record.id)
            line.add("label", record.label)
            line.add("kind", record.kind)
            line.add("attempt", record.attempts)
            line.add("summary", masked(record.summary))
        }
    }

    func stepFinished(_ record: StepRecord) {
        stepFinished(record, latency: nil, lateness: nil)
    }

    func stepFinished(_ record: StepRecord, latency: Duration?, lateness: Duration?) {
        emit("step-end") { line in
            line.add("id", record.id)
            line.add("label", record.label)
            line.add("kind", record.kind)
            line.add("status", record.status.rawValue)
            line.add("attempt", record.attempts)
            line.add("durationSeconds", record.duration?.seconds, places: 6)
            line.add("latencySeconds", (latency ?? record.duration)?.seconds, places: 6)
            if let lateness { line.add("latenessSeconds", lateness.seconds, places: 6) }
            if let status = record.httpStatus { line.add("httpStatus", status) }
            if let exit = record.exitCode { line.add("exit", exit) }
            if let failure = record.failure { line.add("error", Self.error(failure.kind.rawValue, masked(failure.message))) }
        }
    }

    func groupFinished(_ record: GroupRecord) {
        emit("group-end") { line in
            line.add("id", record.id)
            line.add("label", record.label)
            line.add("kind", record.kind)
            line.add("status", record.status.rawValue)
            line.add("durationSeconds", record.duration?.seconds, places: 6)
            if let failure = record.failure { line.add("error", Self.error(failure.kind.rawValue, masked(failure.message))) }
            if !record.thresholds.isEmpty { line.add("thresholds", .array(record.thresholds.map(JSONReport.threshold))) }
        }
    }

    private static func error(_ kind: String, _ message: String) -> JSONValue {
        .object([("kind", .string(kind)), ("message", .string(message))])
    }

    func log(_ message: String, step id: String) {}

    /// One line: the event's name and time, then what `members` adds,
    /// written into a line of its own and then into the buffer (the lock
    /// is held for the copy alone).
    private func emit(_ event: String, _ members: (inout JSONLine) -> Void) {
        var line = JSONLine()
        line.add("event", event)
        line.add("time", json: timeNow())
        members(&line)
        let bytes = line.finished()
        let full = state.withLock { state in
            guard !state.closed else { return false }
            state.buffer.append(contentsOf: bytes)
            return state.buffer.count >= Self.flushBytes
        }
        if full { flush() }
    }

    /// Now as the lines write it (quoted ISO 8601 to the millisecond).
    private func timeNow() -> [UInt8] {
        let now = WallClock.now()
        let millisecond = Int((now * 1000).rounded())
        if let same = lastTime.withLock({ $0.millisecond == millisecond ? $0.json : nil }) { return same }
        var time: [UInt8] = [UInt8(ascii: "\"")]
        time.reserveCapacity(26)
        ReportTime.appendISO8601(now, to: &time)
        time.append(UInt8(ascii: "\""))
        lastTime.withLock { $0 = (millisecond, time) }
        return time
    }

    /// Writes what waits. The lines are taken out under the buffer's lock
    /// and written outside it (under the writer's, so that lines reach the
    /// file in the order they were made): a thread with an event to add
    /// never waits for a write.
    func flush() {
        writer.withLock { writer in
            guard writer.open else { return }
            write(&writer)
        }
    }

    /// Swaps the buffer with the writer's empty one and writes it.
    private func write(_ writer: inout Writer) {
        var taken: [UInt8] = []
        swap(&taken, &writer.spare)
        state.withLock { swap(&$0.buffer, &taken) }
        if !taken.isEmpty {
            // A reader that went away: the run goes on without it.
            taken.withUnsafeBytes { StandardStreams.write($0, to: descriptor) }
            taken.removeAll(keepingCapacity: true)
        }
        writer.spare = taken
    }

    /// Writes what waits and closes the file; later events are dropped.
    func close() {
        writer.withLock { writer in
            guard writer.open else { return }
            state.withLock { $0.closed = true }
            write(&writer)
            writer.open = false
            _ = Glibc.close(descriptor)
        }
    }
}

/// An `--events` or `--metrics-listen` that cannot be set up: exit 2
/// before anything runs.
struct LiveOutputError: Error, Sendable {
    var message: String
}
