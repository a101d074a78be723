package import PromiseEngine
import Synchronization
import WorkflowModel

/// A counting semaphore made of promises: `lease` gives a claim whose
/// `granted` promise is fulfilled at once when a slot is free, else when one
/// is released, in first-come order. No thread blocks and nothing polls. A
/// wait can be cancelled (through the scope it was made in); it then settles
/// as cancelled and leaves the queue.
///
/// A freed slot goes to the next waiter only once the releasing thread has
/// delivered the outcome that freed it (`Propagation.defer`): when a step's
/// failure makes its fail-fast group cancel the others, they are cancelled
/// before a slot could start one of them. A slot freed while nobody waits
/// is free at once.
package final class Slots: Sendable {
    private struct Waiter {
        let id: Int
        let count: Int
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

    /// A claim on `count` slots (1 by default; `cpus N` takes N, at most
    /// all of them). Call `release()` on it when the work is done, on
    /// every path: it gives the slots back if the claim holds them (even
    /// ones granted after its holder stopped caring) and does nothing
    /// otherwise. Claims are granted in first-come order: a large claim
    /// waits for enough slots, and the smaller ones after it wait for it.
    package func lease(count: Int = 1, in scope: CancelScope) -> SlotLease {
        let count = min(max(1, count), capacity)
        let (granted, resolver) = Promise<Void>.pending()
        let lease = SlotLease(slots: self, count: count, granted: granted)
        let id: Int? = state.withLock { state in
            if state.available >= count && state.head == state.waiters.count {
                state.available -= count
                return nil
            }
            let id = state.nextID
            state.nextID += 1
            state.waiters.append(Waiter(id: id, count: count, lease: lease, resolver: resolver))
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

    /// Takes `count` slots (clamped as `lease` does) when they are free and
    /// nobody waits, without a claim or a promise: the common case of a
    /// step whose group's limit already keeps it under the slots. The
    /// caller gives them back with `giveBack(_:)` exactly once, on every
    /// path. False when it would have to wait (then `lease`).
    package func take(count: Int = 1) -> Int? {
        let count = min(max(1, count), capacity)
        let taken: Bool = state.withLock { state in
            guard state.available >= count && state.head == state.waiters.count else { return false }
            state.available -= count
            return true
        }
        return taken ? count : nil
    }

    /// Gives `count` slots back: the first waiters get them as far as they
    /// go, once this thread has delivered what it is delivering.
    package func giveBack(_ count: Int) {
        // With nobody waiting there is no one to start too early: the
        // slots are free at once (the next iteration of a foreach at its
        // limit then takes one without waiting).
        let freed: Bool = state.withLock { state in
            guard state.head == state.waiters.count else { return false }
            state.available += count
            return true
        }
        guard !freed else { return }
        Propagation.defer { [self] in
            let granted: [Waiter] = state.withLock { state in
                state.available += count
                return Self.grant(&state)
            }
            for waiter in granted {
                waiter.lease.markHeld()
                waiter.resolver.fulfill()
            }
        }
    }

    /// Takes from the front of the queue the waiters the free slots cover.
    private static func grant(_ state: inout State) -> [Waiter] {
        var granted: [Waiter] = []
        while state.head < state.waiters.count, state.waiters[state.head].count <= state.available {
            let waiter = state.waiters[state.head]
            state.available -= waiter.count
            state.head += 1
            granted.append(waiter)
        }
        if state.head > 64 && state.head * 2 > state.waiters.count {
            state.waiters.removeFirst(state.head)
            state.head = 0
        }
        return granted
    }

    /// A cancelled wait leaves the queue (and a large claim that left may
    /// let smaller ones behind it through).
    private func abandon(_ id: Int) {
        let (resolver, granted): (Resolver<Void>?, [Waiter]) = state.withLock { state in
            guard let index = state.waiters[state.head...].firstIndex(where: { $0.id == id }) else { return (nil, []) }
            let resolver = state.waiters.remove(at: index).resolver
            return (resolver, Self.grant(&state))
        }
        resolver?.cancel()
        for waiter in granted {
            waiter.lease.markHeld()
            waiter.resolver.fulfill()
        }
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
    private let count: Int
    private let held = Atomic<Bool>(false)

    fileprivate init(slots: Slots, count: Int, granted: Promise<Void>) {
        self.slots = slots
        self.count = count
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
            slots.giveBack(count)
        }
    }
}
