import Dispatch
import PromiseTestSupport
import Synchronization
import Testing
import WorkflowTestSupport

@testable import PromiseEngine
@testable import WorkflowLanguage
@testable import WorkflowModel
@testable import WorkflowRun

// `.ci/run` runs this suite under ThreadSanitizer (`--filter Stress`).

@Suite("Slots Stress")
struct SlotsStressTests {
    static let threads = 8

    @Test("slot leases taken, cancelled and released from many threads never exceed the capacity and all come back")
    func slotsFromManyThreads() {
        let slots = Slots(capacity: 3)
        let holding = Atomic<Int>(0)
        let peak = Atomic<Int>(0)
        let finished = Counter()
        let scopes = (0..<Self.threads).map { _ in CancelScope() }
        DispatchQueue.concurrentPerform(iterations: Self.threads) { thread in
            for round in 0..<300 {
                let lease = slots.lease(in: scopes[thread])
                // Some holders give up before their slot comes.
                let work = lease.granted.map { () -> Int in
                    let now = holding.add(1, ordering: .relaxed).newValue
                    peak.max(now, ordering: .relaxed)
                    holding.subtract(1, ordering: .relaxed)
                    return round
                }
                let done = work.ensure { lease.release() }
                if round % 7 == 0 { done.cancel() }
                done.finally { finished.increment() }
            }
        }
        // Every lease ends: granted (and released) or abandoned.
        for scope in scopes { scope.cancel() }
        #expect(finished.current == Self.threads * 300)
        #expect(slots.inUse == 0)
        #expect(peak.load(ordering: .relaxed) <= 3)
    }

}
