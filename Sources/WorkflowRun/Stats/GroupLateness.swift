import PromiseEngine
import WorkflowModel

/// How late a group's iterations started against their `rate`'s schedule,
/// and what held them back: when a late one started with
/// every lane of its `limit` busy, the limit; otherwise the runner itself.
/// Said twice at most: as the group starts to fall behind (once, while it
/// runs, as k6 says "insufficient VUs"), and when it ends behind.
/// See docs/language.md, 'Load'.
final class GroupLateness: Sendable {
    private struct State {
        var lateness = LatencyHistogram()
        var running = 0
        /// Starts later than the warning's bound, and of those, the ones
        /// that waited for a lane.
        var late = 0
        var lateAtLimit = 0
        /// The iterations that ended, and the time they took from their
        /// real start (for the lanes the rate needs).
        var ended = 0
        var busy: Duration = .zero
        var warnedWhileRunning = false
    }

    /// How the group's iterations run at once.
    enum Lanes: Sendable {
        /// `parallel limit N`.
        case limit(Int)
        /// `parallel` without a limit.
        case unlimited
        /// Not `parallel`: one after another.
        case sequential
    }

    /// Late iterations seen before the warning while it runs: a stall of
    /// one or two is not a trend.
    static let lateBeforeWarning = 10

    private let id: String
    private let lanes: Lanes
    private let peakRate: Double
    private let bound: Duration
    private let state = Lock(State())

    /// - Parameters:
    ///   - id: the group's id, as the warnings name it.
    ///   - peakRate: the highest rate of its schedule, per second.
    ///   - planned: the group's planned duration, when known: a lateness
    ///     past 1% of it (and past 10 ms) is worth a warning.
    init(group id: String, lanes: Lanes, peakRate: Double, planned: Duration?) {
        self.id = id
        self.lanes = lanes
        self.peakRate = peakRate
        let share = planned.map { $0 / 100 } ?? .zero
        bound = max(.milliseconds(10), share)
    }

    /// An iteration starts, `lateness` after it was due. Returns the
    /// warning to give now when this start shows the group falling
    /// behind: the first time more than 1% of its starts so far (and at
    /// least `lateBeforeWarning`) were later than the bound, which is
    /// the warning at its end had it ended now (its lateness p99 so far
    /// past the bound).
    func started(lateness: Duration) -> String? {
        let warning: State? = state.withLock { state in
            state.lateness.record(max(.zero, lateness))
            state.running += 1
            guard lateness > bound else { return nil }
            state.late += 1
            if case .limit(let limit) = lanes, state.running >= limit { state.lateAtLimit += 1 }
            if case .sequential = lanes { state.lateAtLimit += 1 }
            guard !state.warnedWhileRunning, state.late >= Self.lateBeforeWarning, state.late * 100 > state.lateness.count else {
                return nil
            }
            state.warnedWhileRunning = true
            return state
        }
        guard let warning else { return nil }
        return "'\(id)' is falling behind its schedule: \(warning.late) of its first \(warning.lateness.count) iterations "
            + "started over \(Self.time(bound)) late (the latest by \(Self.time(max(.zero, lateness)))); " + cause(warning)
    }

    /// An iteration ended, `took` after it really started.
    func ended(took: Duration) {
        state.withLock { state in
            state.running -= 1
            state.ended += 1
            state.busy += took
        }
    }

    /// The warning for the group when its lateness p99 is past the bound;
    /// nil when it kept to its schedule.
    func warning() -> String? {
        let state = state.withLock { $0 }
        let p99 = state.lateness.percentile(99)
        guard state.lateness.count > 0, Duration.microseconds(p99) > bound else { return nil }
        return "'\(id)' fell behind its schedule: lateness p99 \(Self.time(.microseconds(p99))), "
            + "max \(Self.time(.microseconds(state.lateness.maximum))) (\(state.late) of \(state.lateness.count) iterations "
            + "started over \(Self.time(bound)) late); " + cause(state)
    }

    /// What held the group back, what to do about it, and that nothing
    /// was dropped.
    private func cause(_ state: State) -> String {
        let kept = "none is dropped: each starts as soon as it can, its latency counted from when it was due"
        // The lanes the rate needs (Little's law): the rate times the
        // time an iteration takes.
        let mean = state.ended > 0 ? state.busy / state.ended : nil
        let needed = mean.map { Int((peakRate * $0.seconds).rounded(.up)) }
        let sizing = mean.map { " (\(Self.rate(peakRate))/s × \(Self.time($0)) an iteration needs about \(needed!) at once)" } ?? ""
        guard state.lateAtLimit * 2 >= state.late else {
            return "the runner itself could not keep up (lanes were free when they were due): lower the rate, "
                + "or give the runner more CPU; " + kept
        }
        switch lanes {
        case .limit(let limit):
            let advice = needed.map { $0 > limit ? "raise it to at least \($0)" : "raise it" } ?? "raise it"
            return "its 'limit \(limit)' held it back (every lane was busy when they were due): \(advice)\(sizing); " + kept
        case .sequential:
            let advice = needed.map { "'parallel limit \(max(2, $0))'" } ?? "'parallel limit N'"
            return "its iterations run one at a time, and each outlasts the schedule: give it \(advice)\(sizing); " + kept
        case .unlimited:
            return "the runner itself could not keep up: lower the rate, or give the runner more CPU; " + kept
        }
    }

    private static func time(_ duration: Duration) -> String { ThresholdResult.seconds(duration.seconds) }
    private static func rate(_ rate: Double) -> String { ThresholdResult.decimal(rate, places: 1) }
}
