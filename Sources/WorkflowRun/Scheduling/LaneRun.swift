import PromiseEngine
import WorkflowModel

/// Runs the lanes of a group: at most `limit` at once, each in a cancel
/// scope of its own, a lane only after the lanes it needs succeeded; ends
/// once every started lane has stopped. Lanes that never start are skipped.
///
/// - `all`: every lane must succeed (`parallel`, `foreach`). Fail-fast
///   unless `keepGoing`: the first failure cancels the lanes still running,
///   no new lane starts, and the group fails with that first error.
/// - `race`: the first lane to finish decides; the others are cancelled.
/// - `any`: the first lane to succeed wins; the others are cancelled; fails
///   only when every lane failed.
///
/// Lanes without dependencies start in order from a counter, so a foreach
/// over millions of items keeps only its running lanes in memory (and the
/// first `failuresKept` failures; the others are counted).
final class LaneRun: Sendable {
    enum Mode: Sendable {
        case all(keepGoing: Bool)
        case race
        case any
    }

    private struct State {
        var nextIndex = 0
        /// Lanes with dependencies not yet started (only when there are any).
        var waiting: [Int] = []
        var running: [Int: CancelScope] = [:]
        /// Lanes that succeeded (kept only when some lane needs another).
        var succeeded = Set<Int>()
        var failures: [RunError] = []
        /// Failures past the first `failuresKept`, counted.
        var moreFailures = 0
        var cancelledLanes = 0
        var winner: Outcome<Void>?
        var stopping = false
        var pumping = false
        var finished = false
        /// A wake-up is scheduled for the next lane's due moment.
        var waking = false
    }

    /// A rate's schedule: lane `k` starts no earlier than `due(k)` on
    /// `clock`. A lane not yet due holds no slot: the pump
    /// sleeps until it is, so the slots hold only lanes at work.
    struct Schedule: Sendable {
        var due: @Sendable (Int) -> Duration
        var clock: any PromiseClock
    }

    let result: Promise<Void>
    private let resolver: Resolver<Void>
    private let state = Lock(State())
    private let count: Int
    private let dependencies: [[Int]]
    private let hasDependencies: Bool
    private let limit: Int
    private let mode: Mode
    private let scope: CancelScope
    private let start: @Sendable (Int, CancelScope) -> Promise<Void>
    private let skip: @Sendable ([Int], Int) -> Void
    private let mayStart: (@Sendable () -> Bool)?
    private let schedule: Schedule?
    private let aggregate: @Sendable ([RunError], Int) -> RunError
    private let handled: (@Sendable ([RunError]) -> Void)?
    private let skipListed: Int
    /// A group keeps this many of its lanes' failures (the errors the
    /// group's own names, and `any` marks as handled); the rest are counted.
    static let failuresKept = 1_000

    /// - Parameters:
    ///   - start: runs lane `i` in the scope given.
    ///   - mayStart: when given, no lane starts once it says no (`repeat
    ///     for D`: the count is then open, and nothing is left to skip).
    ///   - skip: marks the steps of lanes that never started as skipped:
    ///     the first `skipListed` of them by number, and how many in all.
    ///   - aggregate: one error for several failures (keep-going, any):
    ///     those kept, and how many more were counted.
    ///   - handled: hears the lanes' failures an `any` made up for (another
    ///     lane succeeded).
    init(
        count: Int, dependencies: [[Int]] = [], limit: Int?, mode: Mode, scope: CancelScope,
        mayStart: (@Sendable () -> Bool)? = nil, schedule: Schedule? = nil, skipListed: Int = Int.max,
        aggregate: @escaping @Sendable ([RunError], Int) -> RunError,
        handled: (@Sendable ([RunError]) -> Void)? = nil,
        start: @escaping @Sendable (Int, CancelScope) -> Promise<Void>,
        skip: @escaping @Sendable ([Int], Int) -> Void
    ) {
        self.mayStart = mayStart
        self.schedule = schedule
        self.skipListed = skipListed
        self.handled = handled
        (result, resolver) = Promise<Void>.pending()
        self.count = count
        self.dependencies = dependencies
        hasDependencies = dependencies.contains { !$0.isEmpty }
        switch mode {
        case .race, .any: self.limit = max(1, count)
        case .all: self.limit = max(1, limit ?? count)
        }
        self.mode = mode
        self.scope = scope
        self.start = start
        self.skip = skip
        self.aggregate = aggregate
        if hasDependencies {
            state.withLock { $0.waiting = Array(0..<count) }
        }
    }

    /// Starts the lanes; returns the group's promise.
    func run() -> Promise<Void> {
        scope.onCancel { [self] in
            state.withLock { $0.stopping = true }
            finishIfDone()
        }
        pump()
        return result
    }

    /// Starts lanes while slots are free. One caller pumps at a time; a lane
    /// that ends at once during the pump leaves the starting to the pump, so
    /// instant lanes never recurse.
    private func pump() {
        let entered: Bool = state.withLock { state in
            guard !state.pumping, !state.finished else { return false }
            state.pumping = true
            return true
        }
        guard entered else { return }
        while true {
            var wake: Duration?
            let next: (Int, CancelScope)? = state.withLock { state in
                // Under a schedule, the next lane waits for its moment.
                if let schedule, !hasDependencies, canStart(state) {
                    let wait = schedule.due(state.nextIndex) - schedule.clock.now()
                    if wait > .zero {
                        if !state.waking {
                            state.waking = true
                            wake = wait
                        }
                        state.pumping = false
                        return nil
                    }
                }
                guard let index = takeNextLane(&state) else {
                    state.pumping = false
                    return nil
                }
                let laneScope = CancelScope(parent: scope)
                state.running[index] = laneScope
                return (index, laneScope)
            }
            guard let (index, laneScope) = next else {
                if let wake, let schedule {
                    _ = schedule.clock.schedule(after: wake) { [self] in
                        state.withLock { $0.waking = false }
                        pump()
                    }
                }
                break
            }
            start(index, laneScope).observeNow(asChild: true) { [self] outcome in
                complete(index, outcome, laneScope)
            }
        }
        finishIfDone()
    }

    private func complete(_ index: Int, _ outcome: Outcome<Void>, _ laneScope: CancelScope) {
        let cancelOthers: [CancelScope] = state.withLock { state in
            state.running[index] = nil
            var decided = false
            switch outcome {
            case .fulfilled:
                if hasDependencies { state.succeeded.insert(index) }
                switch mode {
                case .race, .any: decided = state.winner == nil
                case .all: break
                }
            case .rejected(let error):
                if state.failures.count < Self.failuresKept {
                    state.failures.append(error as? RunError ?? RunError(stepID: "?", kind: .fail, message: "\(error)"))
                } else {
                    state.moreFailures += 1
                }
                switch mode {
                case .race: decided = state.winner == nil
                case .all(let keepGoing): decided = !keepGoing && !state.stopping
                case .any: break
                }
            case .cancelled:
                state.cancelledLanes += 1
            }
            guard decided else { return [] }
            if case .all = mode {} else { state.winner = outcome }
            state.stopping = true
            return Array(state.running.values)
        }
        laneScope.finish()
        for other in cancelOthers { other.cancel() }
        pump()
    }

    /// Ends the group once nothing runs and nothing more can start.
    private func finishIfDone() {
        let ending: (Outcome<Void>, [Int], Int, [RunError])? = state.withLock { state in
            guard !state.finished, !state.pumping, state.running.isEmpty, !canStart(state) else { return nil }
            state.finished = true
            let notStartedCount = mayStart != nil ? 0 : hasDependencies ? state.waiting.count : count - state.nextIndex
            let notStarted =
                hasDependencies
                ? Array(state.waiting.prefix(skipListed))
                : Array(state.nextIndex..<(state.nextIndex + min(notStartedCount, skipListed)))
            let outcome = outcome(state)
            // An `any` another lane won made up for the lanes that failed.
            var madeUpFor: [RunError] = []
            if case .any = mode, outcome.isFulfilled { madeUpFor = state.failures }
            return (outcome, notStarted, notStartedCount, madeUpFor)
        }
        guard let (outcome, notStarted, notStartedCount, madeUpFor) = ending else { return }
        if !madeUpFor.isEmpty { handled?(madeUpFor) }
        if notStartedCount > 0 { skip(notStarted, notStartedCount) }
        resolver.resolve(outcome)
    }

    private func outcome(_ state: State) -> Outcome<Void> {
        if scope.isCancelled, state.winner == nil { return .cancelled }
        switch mode {
        case .race:
            return state.winner ?? .cancelled
        case .any:
            if let winner = state.winner { return winner }
            if !state.failures.isEmpty { return .rejected(aggregate(state.failures, state.moreFailures)) }
            return .cancelled
        case .all(let keepGoing):
            if let first = state.failures.first {
                guard keepGoing, state.failures.count > 1 else { return .rejected(first) }
                return .rejected(aggregate(state.failures, state.moreFailures))
            }
            return state.cancelledLanes > 0 ? .cancelled : .fulfilled(())
        }
    }

    /// Whether a lane could start now (under the lock; does not take it).
    private func canStart(_ state: State) -> Bool {
        guard !state.stopping, state.running.count < limit else { return false }
        if let mayStart, !mayStart() { return false }
        if !hasDependencies { return state.nextIndex < count }
        return state.waiting.contains { index in dependencies[index].allSatisfy { state.succeeded.contains($0) } }
    }

    /// The next lane to start, taken off the list (under the lock).
    private func takeNextLane(_ state: inout State) -> Int? {
        guard canStart(state) else { return nil }
        if !hasDependencies {
            defer { state.nextIndex += 1 }
            return state.nextIndex
        }
        guard
            let position = state.waiting.firstIndex(where: { index in
                dependencies[index].allSatisfy { state.succeeded.contains($0) }
            })
        else { return nil }
        return state.waiting.remove(at: position)
    }
}
