import Synchronization

/// A clock that moves only when told to: `advance(by:)` runs, in time order
/// and on the calling thread, every action that falls due. For tests that
/// must not sleep.
///
/// ```swift
/// let clock = ManualClock()
/// let slow = Promise<Int>.pending().promise.timeout(.seconds(5), clock: clock)
/// clock.advance(by: .seconds(5))      // slow is now rejected: PromiseError.timedOut
/// ```
public final class ManualClock: PromiseClock, Sendable {
    private struct Entry {
        let id: Int
        let due: Duration
        let action: @Sendable () -> Void
    }

    private struct State {
        var now: Duration = .zero
        var nextID = 0
        var entries: [Entry] = []
    }

    private let state = Lock(State())

    /// A clock at time zero with nothing scheduled.
    public init() {}

    public func now() -> Duration {
        state.withLock { $0.now }
    }

    /// How many actions wait to fall due.
    public var pendingCount: Int {
        state.withLock { $0.entries.count }
    }

    public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any ScheduledTimer {
        let id: Int = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.entries.append(Entry(id: id, due: state.now + max(delay, .zero), action: action))
            return id
        }
        return ManualTimer(clock: self, id: id)
    }

    /// Moves time forward by `duration`, running each action as its time
    /// comes (actions scheduled by those actions too, if they fall due).
    public func advance(by duration: Duration) {
        let target = state.withLock { $0.now + duration }
        while true {
            let next: Entry? = state.withLock { state in
                let due = state.entries.enumerated()
                    .filter { $0.element.due <= target }
                    .min { ($0.element.due, $0.element.id) < ($1.element.due, $1.element.id) }
                guard let due else {
                    state.now = target
                    return nil
                }
                state.entries.remove(at: due.offset)
                state.now = max(state.now, due.element.due)
                return due.element
            }
            guard let next else { return }
            next.action()
        }
    }

    fileprivate func cancel(_ id: Int) {
        state.withLock { state in state.entries.removeAll { $0.id == id } }
    }
}

private struct ManualTimer: ScheduledTimer {
    let clock: ManualClock
    let id: Int
    func cancel() { clock.cancel(id) }
}
