import Dispatch
import PromiseTestSupport
import Synchronization
import Testing
import WorkflowTestSupport

@testable import PromiseEngine
@testable import WorkflowLanguage
@testable import WorkflowModel
@testable import WorkflowRun

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

    @Test("a claim on several slots (cpus N) waits for all of them, in first-come order, and gives them all back")
    func weightedClaims() {
        let slots = Slots(capacity: 4)
        let scope = CancelScope()
        let one = slots.lease(count: 1, in: scope)
        let three = slots.lease(count: 3, in: scope)
        #expect(one.granted.state_ == "fulfilled(())" && three.granted.state_ == "fulfilled(())")
        #expect(slots.inUse == 4)
        let two = slots.lease(count: 2, in: scope)
        let small = slots.lease(count: 1, in: scope)
        // One slot frees: not enough for `two`, and `small` waits its turn.
        one.release()
        #expect(two.granted.state_ == "pending" && small.granted.state_ == "pending")
        three.release()
        #expect(two.granted.state_ == "fulfilled(())" && small.granted.state_ == "fulfilled(())")
        #expect(slots.inUse == 3)
        // More than there are: all of them.
        let huge = slots.lease(count: 64, in: scope)
        two.release()
        small.release()
        #expect(huge.granted.state_ == "fulfilled(())")
        #expect(slots.inUse == 4)
        huge.release()
        #expect(slots.inUse == 0)
    }

    @Test("a large claim that gives up lets the smaller ones behind it through")
    func abandonedLargeClaim() {
        let slots = Slots(capacity: 2)
        let scope = CancelScope()
        let holder = slots.lease(count: 1, in: scope)
        let waitingScope = CancelScope(parent: scope)
        let large = slots.lease(count: 2, in: waitingScope)
        let small = slots.lease(count: 1, in: scope)
        #expect(large.granted.state_ == "pending" && small.granted.state_ == "pending")
        waitingScope.cancel()
        #expect(large.granted.state_ == "cancelled")
        #expect(small.granted.state_ == "fulfilled(())")
        holder.release()
        small.release()
        #expect(slots.inUse == 0)
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
        let a = slots.lease(in: scope)
        let b = slots.lease(in: scope)
        let c = slots.lease(in: scope)
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
