/// A counting semaphore made of promises: `acquire` gives a promise of a
/// slot, fulfilled at once when one is free, else when one is released, in
/// first-come order. No thread blocks and nothing polls. A wait can be
/// cancelled (through the scope it was made in); it then settles as
/// cancelled and leaves the queue.
public final class Slots: Sendable {
    private struct Waiter {
        let id: Int
        let resolver: Resolver<Void>
    }

    private struct State {
        var available: Int
        var nextID = 0
        var waiters: [Waiter] = []
        var head = 0
    }

    private let state: Lock<State>
    public let capacity: Int

    public init(capacity: Int) {
        self.capacity = max(1, capacity)
        state = Lock(State(available: max(1, capacity)))
    }

    /// A promise fulfilled when this caller holds a slot. Release it with
    /// `release()` exactly once after the promise is fulfilled.
    public func acquire(in scope: CancelScope) -> Promise<Void> {
        let (promise, resolver) = Promise<Void>.pending()
        let id: Int? = state.withLock { state in
            if state.available > 0 && state.head == state.waiters.count {
                state.available -= 1
                return nil
            }
            let id = state.nextID
            state.nextID += 1
            state.waiters.append(Waiter(id: id, resolver: resolver))
            return id
        }
        guard let id else {
            resolver.fulfill()
            return promise
        }
        let registration = scope.onCancel { [self] in self.abandon(id) }
        return promise.ensure { scope.removeHandler(registration) }
    }

    /// Gives a slot back: the first waiter gets it.
    public func release() {
        let next: Resolver<Void>? = state.withLock { state in
            guard state.head < state.waiters.count else {
                state.available += 1
                return nil
            }
            let waiter = state.waiters[state.head]
            state.head += 1
            if state.head > 64 && state.head * 2 > state.waiters.count {
                state.waiters.removeFirst(state.head)
                state.head = 0
            }
            return waiter.resolver
        }
        next?.fulfill()
    }

    /// A cancelled wait leaves the queue.
    private func abandon(_ id: Int) {
        let resolver: Resolver<Void>? = state.withLock { state in
            guard let index = state.waiters[state.head...].firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters.remove(at: index).resolver
        }
        resolver?.cancel()
    }

    /// Slots in use (for tests and the console).
    public var inUse: Int {
        state.withLock { capacity - $0.available }
    }
}
