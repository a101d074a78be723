import PromiseEngine
import WorkflowModel

/// How late a group's iterations started against their `rate`'s schedule
/// (spec §20), and what held them back: when a late one started with
/// every lane of its `limit` busy, the limit; otherwise the runner itself.
/// Said as a warning when the group ends behind its schedule.
final class GroupLateness: Sendable {
    private struct State {
        var lateness = LatencyHistogram()
        var running = 0
        /// Starts later than the warning's bound, and of those, the ones
        /// that waited for a lane.
        var late = 0
        var lateAtLimit = 0
    }

    private let limit: Int?
    private let bound: Duration
    private let state = Lock(State())

    /// - Parameter planned: the group's planned duration, when known: a
    ///   lateness p99 past 1% of it (and past 10 ms) is worth a warning.
    init(limit: Int?, planned: Duration?) {
        self.limit = limit
        let share = planned.map { $0 / 100 } ?? .zero
        bound = max(.milliseconds(10), share)
    }

    /// An iteration starts, `lateness` after it was due.
    func started(lateness: Duration) {
        state.withLock { state in
            state.lateness.record(max(.zero, lateness))
            if lateness > bound {
                state.late += 1
                if let limit, state.running >= limit - 1 { state.lateAtLimit += 1 }
            }
            state.running += 1
        }
    }

    /// An iteration ended.
    func ended() {
        state.withLock { $0.running -= 1 }
    }

    /// The warning for group `id` when its lateness p99 is past the bound;
    /// nil when it kept to its schedule.
    func warning(group id: String) -> String? {
        let state = state.withLock { $0 }
        let p99 = state.lateness.percentile(99)
        guard state.lateness.count > 0, Duration.microseconds(p99) > bound else { return nil }
        func time(_ microseconds: Int64) -> String { ThresholdResult.seconds(Double(microseconds) / 1_000_000) }
        let bound = ThresholdResult.seconds(bound.seconds)
        let cause = limit != nil && state.lateAtLimit * 2 >= state.late
            ? "its 'limit \(limit!)' held it back (every lane was busy when they were due); raise the limit"
            : "the runner itself could not keep up (lanes were free); lower the rate or give the runner more CPU"
        return "'\(id)' fell behind its schedule: lateness p99 \(time(p99)), max \(time(state.lateness.maximum)) "
            + "(\(state.late) of \(state.lateness.count) iterations started over \(bound) late); \(cause)"
    }
}
