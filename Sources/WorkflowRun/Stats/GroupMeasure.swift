import PromiseEngine
package import WorkflowModel

/// What a group with thresholds measures of the steps inside it while it
/// runs: how many runs ended and failed, and their latencies,
/// over every step and per label a threshold names. Checked when the
/// group ends.
/// See docs/language.md, 'Load'.
final class GroupMeasure: Sendable {
    /// The runs of the steps measured: every step's, or one label's.
    private struct Runs {
        var latency = LatencyHistogram()
        var lateness = LatencyHistogram()
        var ended = 0
        var failed = 0

        mutating func add(failed: Bool, latency: Duration, lateness: Duration?) {
            ended += 1
            if failed { self.failed += 1 }
            self.latency.record(latency)
            if let lateness { self.lateness.record(max(.zero, lateness)) }
        }
    }

    private struct State {
        var all = Runs()
        var labels: [String: Runs] = [:]
        /// The group's iterations that ended (a `repeat` or `foreach`).
        var iterations = 0
    }

    let thresholds: [Threshold]
    /// The group is a `repeat` or `foreach`: its rate is of iterations.
    let countsIterations: Bool
    private let started: Duration
    private let state: Lock<State>

    init(thresholds: [Threshold], started: Duration, countsIterations: Bool = false) {
        self.thresholds = thresholds
        self.countsIterations = countsIterations
        self.started = started
        var state = State()
        for case let label? in thresholds.map(\.label) { state.labels[label] = Runs() }
        self.state = Lock(state)
    }

    /// A step inside the group ended (succeeded or failed).
    func add(label: String?, failed: Bool, latency: Duration, lateness: Duration? = nil) {
        state.withLock { state in
            state.all.add(failed: failed, latency: latency, lateness: lateness)
            if let label, state.labels[label] != nil {
                state.labels[label]!.add(failed: failed, latency: latency, lateness: lateness)
            }
        }
    }

    /// One of the group's iterations ended: `expect rate` of a `repeat`
    /// or `foreach` counts iterations.
    func iterationEnded() {
        state.withLock { $0.iterations += 1 }
    }

    /// No step and no iteration ended (a group that failed as it
    /// started, before any iteration).
    var measuredNothing: Bool {
        state.withLock { $0.all.ended == 0 && $0.iterations == 0 }
    }

    /// Each threshold against what was measured, `now` being the group's end.
    func check(now: Duration) -> [ThresholdResult] {
        let state = state.withLock { $0 }
        let elapsed = (now - started).seconds
        return thresholds.map { threshold in
            let runs = threshold.label.flatMap { state.labels[$0] } ?? state.all
            // Iterations a second for iterations (completions of the
            // label with `of LABEL`), else steps a second.
            let ofIterations = threshold.measure == .rate && threshold.label == nil && countsIterations
            let ended = ofIterations ? state.iterations : runs.ended
            let measured: Double?
            switch threshold.measure {
            case .latency(let statistic):
                measured = runs.latency.count == 0 ? nil : Self.value(statistic, of: runs.latency)
            case .lateness(let statistic):
                // Steps without a schedule are never late.
                measured = runs.lateness.count == 0 ? (runs.ended == 0 ? nil : 0) : Self.value(statistic, of: runs.lateness)
            case .failureShare:
                measured = runs.ended == 0 ? 0 : Double(runs.failed) / Double(runs.ended)
            case .failureCount:
                measured = Double(runs.failed)
            case .rate:
                measured = elapsed > 0 ? Double(ended) / elapsed : 0
            }
            return ThresholdResult(threshold: threshold, measured: measured, failed: runs.failed, ended: ended)
        }
    }

    /// A latency statistic in seconds.
    static func value(_ statistic: Threshold.LatencyStatistic, of histogram: LatencyHistogram) -> Double {
        let microseconds: Double
        switch statistic {
        case .min: microseconds = Double(histogram.minimum)
        case .max: microseconds = Double(histogram.maximum)
        case .mean: microseconds = histogram.mean
        case .percentile: microseconds = Double(histogram.percentile(statistic.percentile ?? 50))
        }
        return microseconds / 1_000_000
    }
}

/// A threshold checked: what was measured, and whether it held.
package struct ThresholdResult: Sendable {
    package var threshold: Threshold
    /// In the threshold's unit (seconds, a share, a count, per second);
    /// nil when nothing was measured (no step ended).
    package var measured: Double?
    /// The group's steps that failed, of those that ended.
    package var failed = 0
    package var ended = 0

    /// Whether the bound held; a latency that could not be measured does not.
    package var holds: Bool { measured.map(threshold.holds) ?? false }

    /// `threshold latency p99 < 250ms failed: p99 was 312.4ms`, or the same
    /// saying it held.
    package var message: String {
        "threshold \(threshold.text) \(holds ? "held" : "failed"): \(measuredText)"
    }

    /// What was measured, in words: `p99 was 312.4ms`, `failures were
    /// 1.52% (38 of 2500)`.
    package var measuredText: String {
        guard let measured else { return "no step ended, so there was nothing to measure" }
        switch threshold.measure {
        case .latency(let statistic): return "\(statistic.word) was \(Self.seconds(measured))"
        case .lateness(let statistic): return "lateness \(statistic.word) was \(Self.seconds(measured))"
        case .failureShare: return "failures were \(Self.decimal(measured * 100))% (\(failed) of \(ended))"
        case .failureCount: return "failures were \(Int(measured)) (of \(ended))"
        case .rate: return "the rate was \(Self.decimal(measured))/s (\(ended) ended)"
        }
    }

    /// `0.42ms`, `12.3ms`, `1.25s`.
    static func seconds(_ value: Double) -> String {
        if value < 0.001 { return decimal(value * 1000, places: 3) + "ms" }
        if value < 1 { return decimal(value * 1000, places: 1) + "ms" }
        return decimal(value, places: 3) + "s"
    }

    /// A number with at most `places` decimals, trailing zeros dropped.
    static func decimal(_ value: Double, places: Int = 2) -> String {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let rounded = (value * scale).rounded() / scale
        if rounded == rounded.rounded(), abs(rounded) < 1e15 { return String(Int(rounded)) }
        var text = String(rounded)
        if text.contains("e") { return text }
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }
}
