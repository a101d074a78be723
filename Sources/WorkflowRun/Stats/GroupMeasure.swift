import PromiseEngine
import WorkflowModel

/// What a group with thresholds measures of the steps inside it while it
/// runs (spec §16): how many runs ended and failed, and their latencies,
/// over every step and per label a threshold names. Checked when the
/// group ends.
final class GroupMeasure: Sendable {
    private struct State {
        var latency = LatencyHistogram()
        var ended = 0
        var failed = 0
        var labels: [String: LatencyHistogram] = [:]
    }

    let thresholds: [Threshold]
    private let started: Duration
    private let state: Lock<State>

    init(thresholds: [Threshold], started: Duration) {
        self.thresholds = thresholds
        self.started = started
        var state = State()
        for case let label? in thresholds.map(\.label) { state.labels[label] = LatencyHistogram() }
        self.state = Lock(state)
    }

    /// A step inside the group ended (succeeded or failed).
    func add(label: String?, failed: Bool, latency: Duration) {
        state.withLock { state in
            state.ended += 1
            if failed { state.failed += 1 }
            state.latency.record(latency)
            if let label, state.labels[label] != nil { state.labels[label]!.record(latency) }
        }
    }

    /// Each threshold against what was measured, `now` being the group's end.
    func check(now: Duration) -> [ThresholdResult] {
        let state = state.withLock { $0 }
        let elapsed = (now - started).seconds
        return thresholds.map { threshold in
            let measured: Double?
            switch threshold.measure {
            case .latency(let statistic):
                let histogram = threshold.label.flatMap { state.labels[$0] } ?? state.latency
                measured = histogram.count == 0 ? nil : Self.value(statistic, of: histogram)
            case .failureShare:
                measured = state.ended == 0 ? 0 : Double(state.failed) / Double(state.ended)
            case .failureCount:
                measured = Double(state.failed)
            case .rate:
                measured = elapsed > 0 ? Double(state.ended) / elapsed : 0
            }
            return ThresholdResult(threshold: threshold, measured: measured, failed: state.failed, ended: state.ended)
        }
    }

    /// A latency statistic in seconds.
    static func value(_ statistic: Threshold.LatencyStatistic, of histogram: LatencyHistogram) -> Double {
        let microseconds: Double
        switch statistic {
        case .min: microseconds = Double(histogram.minimum)
        case .max: microseconds = Double(histogram.maximum)
        case .mean: microseconds = histogram.mean
        default: microseconds = Double(histogram.percentile(statistic.percentile ?? 50))
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
        case .latency(let statistic): return "\(statistic.rawValue) was \(Self.seconds(measured))"
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
