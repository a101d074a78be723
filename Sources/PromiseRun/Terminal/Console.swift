import CommandLineOptions
import Dispatch
import Glibc
import JSON
import PromiseEngine
import Reports
import RunnerSystem
import Synchronization
import WorkflowLanguage
import WorkflowModel
import WorkflowRun

/// What a person sees while a workflow runs. On a terminal: finished steps
/// printed as they end, above a live area of the running steps; elsewhere
/// (CI logs): plain lines, no cursor movement. Step output is shown as
/// `--output` says. Secrets are masked before anything reaches here.
final class Console: ExecutionObserver, StepOutputSink, Sendable {
    struct Settings: Sendable {
        var output: OutputMode
        var verbosity: Verbosity
        var style: ConsoleStyle
        /// Draw the live area (standard output is a terminal).
        var live: Bool
        /// The ids of the `repeat` groups and the `foreach` groups with a
        /// `rate`: their iterations' successes are counted, not printed
        /// one a line, and the iterations they did not start are said in
        /// one line.
        var loadGroups: Set<String> = []
        /// Print progress lines every 10 s without a live area (a run
        /// shown from its no-op record takes no time, and starts no timer).
        var ticks = true
    }

    private struct Running {
        var label: String
        var started: ContinuousClock.Instant
        var received: Int64?
        var expected: Int64?
        var attempt: Int
        /// When it started among the running ones (the live view shows the
        /// oldest first).
        var sequence: Int
    }

    private struct State {
        var running: [String: Running] = [:]
        var nextSequence = 0
        var grouped: [String: GroupedOutput] = [:]
        var liveLines = 0
        /// When the live area was last drawn: it is drawn at most ten
        /// times a second.
        var drawn: ContinuousClock.Instant?
        /// Whether printed lines drew it since the timer's last tick: the
        /// tick then leaves it as it is.
        var drawnSinceTick = false
        var finished = 0
        var stopped = false
        /// Per repeated label: the lines printed for its runs that ended
        /// (failures apart), and whether the cut was said.
        var printed: [String: PrintedRuns] = [:]
    }

    private struct PrintedRuns {
        var others = 0
        var failures = 0
        var cutSaid = false
    }

    /// A label that runs many times (a `foreach`, a `repeat`) prints the
    /// line of its first this many runs, and of as many failures; the rest
    /// are counted, and the statistics at the end have them: a load test's
    /// log stays readable.
    static let linesPerLabel = 1_000
    /// The failures of a label printed as they happen.
    static let failuresPerLabel = 100
    /// The shortest time between two drawings of the live area.
    static let redrawInterval = Duration.milliseconds(100)
    /// Without a terminal, a progress line per running load group this often.
    static let progressInterval = Duration.seconds(10)

    let settings: Settings
    private let state = Mutex(State())
    private let total: @Sendable () -> Int
    private let labels: @Sendable () -> [LabelStats]
    private let loads: @Sendable () -> [LoadProgress]
    private let timer: Ticker?
    private let warnedFlag = Atomic<Bool>(false)

    /// Whether a warning was printed (a run that warns is shown in full
    /// next time, never from a no-op record that would not say it).
    var warned: Bool { warnedFlag.load(ordering: .relaxed) }

    /// - Parameters:
    ///   - total: how many steps the run has (for `[done/total]`).
    ///   - labels: the statistics so far of the labels that ran more than
    ///     once (the live area shows their rate and p99).
    ///   - loads: how far the load groups running now have come (a log's
    ///     progress lines).
    init(
        settings: Settings, total: @escaping @Sendable () -> Int, labels: @escaping @Sendable () -> [LabelStats] = { [] },
        loads: @escaping @Sendable () -> [LoadProgress] = { [] }
    ) {
        self.settings = settings
        self.total = total
        self.labels = labels
        self.loads = loads
        if settings.live {
            timer = Ticker(interval: .milliseconds(100))
            timer?.start { [weak self] in self?.redraw() }
        } else if settings.verbosity != .quiet, settings.ticks {
            timer = Ticker(interval: .seconds(10))
            timer?.start { [weak self] in self?.progress() }
        } else {
            timer = nil
        }
    }

    private var style: ConsoleStyle { settings.style }

    // MARK: - ExecutionObserver

    /// What `stepStarted` shows: the live area, the verbose line, or a
    /// retry's line. A load group's first attempts are not shown one by
    /// one in the live area (it shows their labels' runs, rate and p99):
    /// a load test on a terminal then costs what it does in a log.
    func showsStart(ofAttempt attempt: Int, inGroup group: String?) -> Bool {
        if settings.verbosity == .verbose || (attempt > 1 && settings.verbosity != .quiet) { return true }
        guard settings.live else { return false }
        if attempt == 1, let group, !settings.loadGroups.isEmpty, settings.loadGroups.contains(Self.nodeID(of: group)) { return false }
        return true
    }

    func stepStarted(_ record: StepRecord) {
        let why = record.attempts > 1 ? Self.retryReason(record) : ""
        let line: String? =
            settings.verbosity == .verbose
            ? "\(style.dim("▶")) \(record.id) \(style.dim(ConsoleStyle.foreignLine(record.summary)))\(record.attempts > 1 ? style.yellow(" (attempt \(record.attempts))") + why : "")"
            : (record.attempts > 1 && settings.verbosity != .quiet ? "\(style.yellow("↻")) \(record.id) attempt \(record.attempts)\(why)" : nil)
        // Without a live area, only a line to print needs the lock.
        guard settings.live || line != nil else { return }
        emit(line.map { [$0] } ?? []) { state in
            guard settings.live else { return }
            let sequence = state.running[record.id]?.sequence ?? state.nextSequence
            state.nextSequence += 1
            state.running[record.id] = Running(label: record.id, started: .now, attempt: record.attempts, sequence: sequence)
        }
    }

    /// Why the attempt before failed, for the retry line: `: attempt 1
    /// failed (http 503): expected status 200, got 503`, one line, cut.
    static func retryReason(_ record: StepRecord) -> String {
        guard let last = record.attemptLog.last, let failure = last.failure else { return "" }
        var cause = failure.kind.rawValue
        if let status = last.httpStatus, failure.kind == .http || failure.kind == .expect { cause = "http \(status)" }
        if let exit = last.exitCode, failure.kind == .exit { cause = "exit \(exit)" }
        let message = ConsoleStyle.foreignLine(failure.message)
        let text = ": attempt \(last.number) failed (\(cause))" + (message.isEmpty ? "" : ": " + message)
        return text.count > 200 ? String(text.prefix(199)) + "…" : text
    }

    func stepFinished(_ record: StepRecord) {
        var lines: [String] = []
        var show = settings.verbosity != .quiet || record.status == .failed
        // A load group's iterations: successes are in the progress and the
        // table, the ones not started in one line (`iterationsNotStarted`).
        if show, record.status == .succeeded || record.status == .skipped, settings.verbosity != .verbose,
            !settings.loadGroups.isEmpty, let group = record.group, settings.loadGroups.contains(Self.nodeID(of: group)),
            LabelStats.key(of: record.id) != nil
        {
            show = false
        }
        emit({ state in
            if show, let label = LabelStats.key(of: record.id) {
                var printed = state.printed[label, default: PrintedRuns()]
                let failed = record.status == .failed
                if failed ? printed.failures < Self.failuresPerLabel : printed.others < Self.linesPerLabel {
                    if failed { printed.failures += 1 } else { printed.others += 1 }
                } else {
                    show = false
                    if !printed.cutSaid {
                        printed.cutSaid = true
                        lines.append(
                            style.dim(
                                "… \(label): past its first \(Self.linesPerLabel) runs (and \(Self.failuresPerLabel) failures), "
                                    + "its runs are counted, not printed; the statistics at the end have them all"))
                    }
                }
                state.printed[label] = printed
            }
            // Without a live area or buffered output these stay empty: no
            // lookup (a load test ends thousands of steps a second).
            if !state.running.isEmpty { state.running[record.id] = nil }
            state.finished += 1
            if !state.grouped.isEmpty, let buffered = state.grouped.removeValue(forKey: record.id) {
                if settings.output == .grouped, !buffered.isEmpty {
                    lines.append(style.dim("── \(record.id) ──"))
                    if buffered.dropped > 0 { lines.append(style.dim("(\(buffered.dropped) earlier lines not shown)")) }
                    lines += buffered.kept
                }
            }
            if show { lines += describe(record) }
            return lines
        })
    }

    func iterationsNotStarted(group id: String, count: Int) {
        guard settings.verbosity != .quiet else { return }
        let what = count == 1 ? "1 iteration" : "\(Format.count(count)) iterations"
        emit(["\(style.symbol(.skipped)) \(style.dim("\(id): \(what) not started"))"]) { _ in }
    }

    /// A group id without its iterations' suffixes: `load` for `load[3]`.
    static func nodeID(of id: String) -> String {
        guard id.last == "]", let open = id.firstIndex(of: "[") else { return id }
        return String(id[..<open])
    }

    func log(_ message: String, step id: String) {
        guard settings.verbosity != .quiet else { return }
        emit(style.foreignLines(message)) { _ in }
    }

    func warning(_ message: String) {
        warnedFlag.store(true, ordering: .relaxed)
        let lines = style.foreignLines(message)
        emit([style.yellow("warning: ") + (lines.first ?? "")] + lines.dropFirst()) { _ in }
    }

    /// `↻ get: server asked to wait 10m (Retry-After capped)`, as the
    /// wait starts (a retry's own line comes when it is over).
    func retryWaiting(step id: String, for wait: Duration, capped: Bool) {
        guard settings.verbosity != .quiet else { return }
        let line =
            "\(style.yellow("↻")) \(id): server asked to wait \(DurationText.format(wait))"
            + (capped ? " (Retry-After capped)" : " (Retry-After)")
        emit([line]) { _ in }
    }

    func transfer(step id: String, received: Int64, expected: Int64?) {
        // Only the live view shows transfers.
        guard settings.live else { return }
        state.withLock { state in
            state.running[id]?.received = received
            state.running[id]?.expected = expected
        }
    }

    // MARK: - StepOutputSink

    func line(_ text: String, stream: OutputChannel, step id: String) {
        switch settings.output {
        case .quiet:
            return
        case .prefixed:
            emit(["\(style.prefix(id)) \(text)"]) { _ in }
        case .grouped:
            // In place: no copy of the step's lines per line.
            state.withLock { $0.grouped[id, default: GroupedOutput()].append(text) }
        }
    }

    // MARK: - Printing

    /// The finished-step line: `✓ build 12.3s`, `✗ unit exit 1 4.1s`, `- lint skipped`.
    private func describe(_ record: StepRecord) -> [String] {
        let time = record.duration.map { " " + style.dim(Format.duration($0)) } ?? ""
        switch record.status {
        case .succeeded:
            return ["\(style.symbol(.succeeded)) \(record.id)\(time)"]
        case .upToDate:
            return ["\(style.symbol(.upToDate)) \(record.id) \(style.dim(record.upToDateFrom == .cache ? "restored from cache" : "up-to-date"))"]
        case .failed:
            let kind = record.failure?.kind
            var cause = kind?.rawValue ?? "failed"
            if kind == .exit, let exit = record.exitCode { cause = "exit \(exit)" }
            if kind == .http, let status = record.httpStatus { cause = "http \(status)" }
            if record.kind == "rethrow" {
                return ["\(style.symbol(.failed)) \(record.id) \(style.dim("passes the caught error on"))"]
            }
            let allowed = record.allowedFailure ? style.yellow(" (allowed)") : ""
            var lines = ["\(style.symbol(.failed)) \(record.id) \(style.red(cause))\(allowed)\(time)"]
            if let message = record.failure?.message {
                lines += style.foreignLines(message).filter { !$0.isEmpty }.map { "    " + $0 }
            }
            return lines
        case .skipped:
            let reason = record.message.map { " (\($0))" } ?? ""
            return ["\(style.symbol(.skipped)) \(style.dim("\(record.id) skipped\(reason)"))"]
        case .cancelled:
            return ["\(style.symbol(.cancelled)) \(record.id) \(style.yellow("cancelled"))\(time)"]
        case .pending, .running:
            return []
        }
    }

    /// Prints lines above the live area (mutating the state first, under the lock).
    private func emit(_ lines: [String], _ change: (inout State) -> Void) {
        emit { state in
            change(&state)
            return lines
        }
    }

    private func emit(_ body: (inout State) -> [String]) {
        state.withLock { state in
            let lines = body(&state)
            // Nothing to print: the live area waits for its timer.
            guard !lines.isEmpty else { return }
            var text = settings.live ? clearLive(&state) : ""
            for line in lines { text += line + "\n" }
            // Drawn again at once only when it was not drawn in the last
            // tenth of a second; else the timer draws it.
            if settings.live && !state.stopped, state.drawn.map({ $0.duration(to: .now) >= Self.redrawInterval }) ?? true {
                text += drawLive(&state)
                state.drawnSinceTick = true
            }
            StandardStreams.writeOutput(text)
        }
    }

    private func redraw() {
        state.withLock { state in
            // The timer ticks ten times a second (at most ten
            // drawings); printed lines draw it between ticks only a tenth of
            // a second after the last drawing, and the next tick is then
            // skipped. (A tick judged by the clock would skip every other
            // one: the last drawing is always a little less than a tick ago.)
            guard !state.stopped else { return }
            if state.drawnSinceTick {
                state.drawnSinceTick = false
                return
            }
            StandardStreams.writeOutput(clearLive(&state) + drawLive(&state))
        }
    }

    /// Without a terminal: a line per running load group, every ten
    /// seconds, so a CI log shows a load test moving.
    private func progress() {
        let lines = loads().map(Self.progressLine)
        state.withLock { state in
            guard !state.stopped, !lines.isEmpty else { return }
            StandardStreams.writeOutput(lines.map { style.dim($0) + "\n" }.joined())
        }
    }

    /// Without a terminal, a load group's last progress line as it ends.
    func loadGroupEnded(_ progress: LoadProgress) {
        guard !settings.live, settings.verbosity != .quiet else { return }
        emit([style.dim(Self.progressLine(progress))]) { _ in }
    }

    /// `load: 12,000/30,000, 500.0/s, p50 4ms, p99 20ms, 3 failed`: its
    /// iterations ended of those planned (of `repeat for D` without a
    /// rate, the time gone of D), their rate, their latency (from when
    /// each was due), and how many failed.
    static func progressLine(_ progress: LoadProgress) -> String {
        var line = "\(progress.group): \(Format.count(progress.ended))"
        if let planned = progress.planned {
            line += "/" + Format.count(planned)
        } else if let duration = progress.plannedDuration {
            line += " (\(DurationText.format(.seconds(Int(min(progress.elapsed, duration).seconds)))) of \(DurationText.format(duration)))"
        }
        line += ", \(FixedPoint.text(progress.ratePerSecond, places: 1))/s"
        if progress.ended > 0 {
            line +=
                ", p50 \(Format.latency(microseconds: progress.latency.percentile(50))), "
                + "p99 \(Format.latency(microseconds: progress.latency.percentile(99)))"
        }
        if progress.failed > 0 { line += ", \(Format.count(progress.failed)) failed" }
        return line
    }

    private func clearLive(_ state: inout State) -> String {
        defer { state.liveLines = 0 }
        return state.liveLines > 0 ? "\u{1B}[\(state.liveLines)F\u{1B}[J" : ""
    }

    private func drawLive(_ state: inout State) -> String {
        state.drawn = .now
        // A load group's iterations are not in `running` (see showsStart):
        // its labels' lines are the area while it goes.
        let repeated = labels().suffix(3)
        guard !state.running.isEmpty || !repeated.isEmpty else { return "" }
        let width = max(20, TerminalSize.columns() - 1)
        var lines: [String] = []
        let now = ContinuousClock.now
        // The eight oldest, without sorting them all.
        var shown: [Running] = []
        for running in state.running.values {
            if shown.count < 8 {
                shown.append(running)
                shown.sort { $0.sequence < $1.sequence }
            } else if running.sequence < shown[7].sequence {
                shown[7] = running
                shown.sort { $0.sequence < $1.sequence }
            }
        }
        lines.append(
            style.dim(
                "[\(state.finished)/\(max(total(), state.finished))]"
                    + (state.running.isEmpty ? "" : " running \(state.running.count)")))
        // A load test's progress: each repeated label's runs, rate and p99
        // so far (the last three to start repeating).
        for label in repeated {
            var line =
                "  \(style.dim("↻")) \(label.label)  \(label.count) runs  \(FixedPoint.text(label.ratePerSecond, places: 1))/s"
                + "  p99 \(Format.latency(microseconds: label.latency.percentile(99)))"
            if label.failed > 0 { line += "  " + style.red("\(label.failed) failed") }
            lines.append(TerminalSize.truncate(line, to: width))
        }
        for running in shown {
            var line = "  \(style.dim("›")) \(ConsoleStyle.foreignLine(running.label)) "
            // A retry's clock starts again: say which attempt it counts.
            if running.attempt > 1 { line += style.yellow("attempt \(running.attempt) ") }
            line += Format.seconds((now - running.started).seconds)
            if let received = running.received {
                line += "  ↓ \(Format.bytes(received))"
                if let expected = running.expected, expected > 0 {
                    line += " / \(Format.bytes(expected)) \(Int(Double(received) * 100 / Double(expected)))%"
                }
            }
            lines.append(TerminalSize.truncate(line, to: width))
        }
        if state.running.count > shown.count {
            lines.append(style.dim("  … and \(state.running.count - shown.count) more"))
        }
        state.liveLines = lines.count
        return lines.joined(separator: "\n") + "\n"
    }

    /// Stops the live area (before the summary).
    func stop() {
        timer?.stop()
        state.withLock { state in
            guard !state.stopped else { return }
            state.stopped = true
            var text = settings.live ? clearLive(&state) : ""
            // Lines a grouped step never got to print (it was still running).
            if settings.output == .grouped {
                for (id, output) in state.grouped where !output.isEmpty {
                    text += style.dim("── \(id) ──") + "\n" + output.kept.joined(separator: "\n") + "\n"
                }
                state.grouped = [:]
            }
            if !text.isEmpty { StandardStreams.writeOutput(text) }
        }
    }

    /// A line printed above the live area, for the runner's own notes.
    func note(_ text: String) {
        emit([text]) { _ in }
    }
}

/// A repeating tick on a thread of its own, apart from Dispatch's global
/// queues and the work a run puts there (a file step's fsync, a large
/// body's parse), so the live area and the progress lines keep their
/// pace. (Nothing in a `rate` group holds those queues' threads:
/// `LoadTruthTests.dispatchDuringRate` sees their work end while one
/// runs.) Stopped by `stop()`; the thread ends at its next tick.
final class Ticker: Sendable {
    private let stopped = Atomic<Bool>(false)
    private let microseconds: UInt32

    init(interval: Duration) {
        let (seconds, attoseconds) = interval.components
        microseconds = UInt32(max(1_000, seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
    }

    func start(_ handler: @escaping @Sendable () -> Void) {
        startDetachedThread(named: "promise-run.tick") { [self] in
            while true {
                usleep(microseconds)
                if stopped.load(ordering: .acquiring) { return }
                handler()
            }
        }
    }

    func stop() { stopped.store(true, ordering: .releasing) }
}
