import Dispatch
import Synchronization
import Testing
@testable import PromiseEngine
import PromiseTestSupport
@testable import WorkflowEngine

@Suite("Slots: leases on a counting semaphore of promises")
struct SlotsTests {
    @Test("a lease granted after its holder gave up still returns the slot")
    func abandonedHolderReturnsTheSlot() {
        let slots = Slots(capacity: 1)
        let scope = CancelScope()
        let first = slots.lease(in: scope)
        #expect(first.granted.state_ == "fulfilled(())")
        let second = slots.lease(in: scope)
        #expect(second.granted.state_ == "pending")
        // The holder's promise is cancelled before its handler could run.
        let work = second.granted.then { () -> Promise<Int> in Promise(value: 1) }
        let done = work.ensure { second.release() }
        done.cancel()
        first.release()
        #expect(done.state_ == "cancelled")
        #expect(slots.inUse == 0)
        let third = slots.lease(in: scope)
        #expect(third.granted.state_ == "fulfilled(())")
    }

    @Test("100,000 slot hand-offs that each end at once need no stack")
    func longRunOfHandOffs() {
        let slots = Slots(capacity: 1)
        let scope = CancelScope()
        let first = slots.lease(in: scope)
        let count = 100_000
        let done = Counter()
        for _ in 0..<count {
            let lease = slots.lease(in: scope)
            lease.granted.done {
                done.increment()
                lease.release()
            }
        }
        first.release()
        #expect(done.current == count)
        #expect(slots.inUse == 0)
    }

    @Test("release is idempotent: a lease gives back at most one slot")
    func releaseOnce() {
        let slots = Slots(capacity: 2)
        let scope = CancelScope()
        let lease = slots.lease(in: scope)
        lease.release()
        lease.release()
        #expect(slots.inUse == 0)
        let a = slots.lease(in: scope), b = slots.lease(in: scope), c = slots.lease(in: scope)
        #expect(a.granted.state_ == "fulfilled(())" && b.granted.state_ == "fulfilled(())" && c.granted.state_ == "pending")
    }

    @Test("a wait cancelled through its scope leaves the queue and holds nothing")
    func cancelledWait() {
        let slots = Slots(capacity: 1)
        let holder = slots.lease(in: CancelScope())
        let scope = CancelScope()
        let waiting = slots.lease(in: scope)
        scope.cancel()
        #expect(waiting.granted.state_ == "cancelled")
        waiting.release()
        holder.release()
        #expect(slots.inUse == 0)
    }
}
