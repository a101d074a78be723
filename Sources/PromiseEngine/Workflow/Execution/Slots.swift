import Synchronization
import PromiseEngine

/// A counting semaphore made of promises: `lease` gives a claim whose
/// `granted` promise is fulfilled at once when a slot is free, else when one
/// is released, in first-come order. No thread blocks and nothing polls. A
/// wait can be cancelled (through the scope it was made in); it then settles
/// as cancelled and leaves the queue.
///
/// A freed slot goes to the next waiter only once the releasing thread has
/// delivered the outcome that freed it (`Propagation.defer`): when a step's
/// failure makes its fail-fast group cancel the others, they are cancelled
/// before a slot could start one of them.
package final class Slots: Sendable {
    private struct Waiter {
        let id: Int
        let lease: SlotLease
        let resolver: Resolver<Void>
    }

    private struct State {
        var available: Int
        var nextID = 0
        var waiters: [Waiter] = []
        var head = 0
    }

    private let state: Lock<State>
    package let capacity: Int

    package init(capacity: Int) {
        self.capacity = max(1, capacity)
        state = Lock(State(available: max(1, capacity)))
    }

    /// A claim on one slot. Call `release()` on it when the work is done, on
    /// every path: it gives the slot back if the claim holds one (even one
    /// granted after its holder stopped caring) and does nothing otherwise.
    package func lease(in scope: CancelScope) -> SlotLease {
        let (granted, resolver) = Promise<Void>.pending()
        let lease = SlotLease(slots: self, granted: granted)
        let id: Int? = state.withLock { state in
            if state.available > 0 && state.head == state.waiters.count {
                state.available -= 1
                return nil
            }
            let id = state.nextID
            state.nextID += 1
            state.waiters.append(Waiter(id: id, lease: lease, resolver: resolver))
            return id
        }
        guard let id else {
            lease.markHeld()
            resolver.fulfill()
            return lease
        }
        let registration = scope.onCancel { [self] in self.abandon(id) }
        granted.observeNow(asChild: false) { _ in scope.removeHandler(registration) }
        return lease
    }

    /// Gives a slot back: the first waiter gets it, once this thread has
    /// delivered what it is delivering.
    fileprivate func giveBack() {
        Propagation.defer { [self] in
            let next: Waiter? = state.withLock { state in
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
                return waiter
            }
            guard let next else { return }
            next.lease.markHeld()
            next.resolver.fulfill()
        }
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
    package var inUse: Int {
        state.withLock { capacity - $0.available }
    }
}

/// One holder's claim on a slot of `Slots`.
package final class SlotLease: Sendable {
    /// Fulfilled when the claim holds a slot; cancelled if the wait was.
    package let granted: Promise<Void>
    private let slots: Slots
    private let held = Atomic<Bool>(false)

    fileprivate init(slots: Slots, granted: Promise<Void>) {
        self.slots = slots
        self.granted = granted
    }

    /// Set before `granted` is fulfilled, so a holder that stopped caring
    /// (its promise cancelled before its handler ran) still gives it back.
    fileprivate func markHeld() {
        held.store(true, ordering: .releasing)
    }

    /// Gives the slot back if this claim holds it; later calls do nothing.
    package func release() {
        if held.exchange(false, ordering: .acquiringAndReleasing) {
            slots.giveBack()
        }
    }
}
