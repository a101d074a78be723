import Dispatch
import PromiseTestSupport
import Synchronization
import Testing

@testable import PromiseEngine

// Many threads settling, chaining and cancelling the same promises at once.
// `.ci/run` runs this suite under ThreadSanitizer (`--filter Stress`).

@Suite("Stress")
struct StressTests {
    static let threads = 8

    @Test("racing fulfil, reject and cancel: exactly one outcome wins, every observer sees it once")
    func racingSettlers() {
        for _ in 0..<2_000 {
            let (p, r) = Promise<Int>.pending()
            let seen = Recorder<String>()
            let chained = (0..<4).map { _ in p.tap { seen.record($0.testDescription) } }
            DispatchQueue.concurrentPerform(iterations: Self.threads) { i in
                switch i % 3 {
                case 0: r.fulfill(i)
                case 1: r.reject(TestError(i))
                default: r.cancel()
                }
            }
            let final = p.state_
            #expect(final != "pending")
            #expect(seen.events == Array(repeating: final, count: 4))
            #expect(chained.allSatisfy { $0.state_ == final })
        }
    }

    @Test("a promise's spin lock under contention: no update is lost, every waiter gets through")
    func spinLockContention() {
        // More threads than cores, so holders are preempted while others
        // spin: the back-off (yield, then sleep) must let them finish.
        final class Guarded: @unchecked Sendable {
            let lock = SpinLock()
            nonisolated(unsafe) var count = 0
            nonisolated(unsafe) var spare = 0
        }
        let guarded = Guarded()
        DispatchQueue.concurrentPerform(iterations: Self.threads) { _ in
            for _ in 0..<100_000 {
                guarded.lock.lock()
                // A read and a later write: without the lock, threads
                // interleave here and updates are lost.
                let seen = guarded.count
                guarded.spare &+= seen
                guarded.count = seen + 1
                guarded.lock.unlock()
            }
        }
        guarded.lock.lock()
        #expect(guarded.count == Self.threads * 100_000)
        guarded.lock.unlock()
    }

    @Test("observers added from many threads while the promise settles each run exactly once")
    func racingObservers() {
        for _ in 0..<500 {
            let (p, r) = Promise<Int>.pending()
            let runs = Counter()
            DispatchQueue.concurrentPerform(iterations: Self.threads) { i in
                if i == 0 { r.fulfill(1) }
                for _ in 0..<50 { _ = p.done { _ in runs.increment() } }
            }
            #expect(runs.current == Self.threads * 50)
        }
    }

    @Test("chains built and settled across threads all end with the right value")
    func crossThreadChains() {
        let results = Lock<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: Self.threads) { i in
            let (head, resolver) = Promise<Int>.pending()
            var tail = head
            for _ in 0..<2_000 { tail = tail.map { $0 + 1 } }
            let queue = DispatchQueue(label: "settle-\(i)")
            let done = DispatchSemaphore(value: 0)
            tail.finally { done.signal() }
            queue.async { resolver.fulfill(i) }
            done.wait()
            results.withLock { $0.append(tail.outcome!.value! - 2_000) }
        }
        #expect(results.withLock { $0.sorted() } == Array(0..<Self.threads))
    }

    @Test("when over promises settled from many threads")
    func whenAcrossThreads() {
        for _ in 0..<50 {
            let pairs = (0..<256).map { _ in Promise<Int>.pending() }
            let all = when(fulfilled: pairs.map(\.promise))
            let resolved = when(resolved: pairs.map(\.promise))
            let first = any(pairs.map(\.promise))
            DispatchQueue.concurrentPerform(iterations: Self.threads) { t in
                for index in stride(from: t, to: pairs.count, by: Self.threads) {
                    pairs[index].resolver.fulfill(index)
                }
            }
            #expect(all.outcome?.value == Array(0..<256))
            #expect(resolved.outcome?.value?.count == 256)
            #expect(first.outcome?.value != nil)
        }
    }

    @Test("cancelling children from many threads while the parent settles")
    func racingCancellation() {
        for _ in 0..<1_000 {
            let cancels = Counter()
            let (p, r) = Promise<Int>.pending()
            r.onCancel {
                cancels.increment()
                r.cancel()
            }
            let children = (0..<Self.threads).map { _ in p.map { $0 } }
            DispatchQueue.concurrentPerform(iterations: Self.threads + 1) { i in
                if i == Self.threads { r.fulfill(1) } else { children[i].cancel() }
            }
            // The value may win even after the cancel handler started: a
            // request is not a verdict. But cancelled implies the handler ran.
            #expect(cancels.current <= 1)
            let final = p.state_
            #expect(final == "fulfilled(1)" || (final == "cancelled" && cancels.current == 1))
            for child in children {
                let state = child.state_
                #expect(state == "cancelled" || state == "fulfilled(1)")
            }
        }
    }

    @Test("race and bounded runs with work finishing on many threads")
    func racesAndBounded() {
        for _ in 0..<200 {
            let pairs = (0..<8).map { _ in Promise<Int>.pending() }
            let winner = race(pairs.map(\.promise))
            DispatchQueue.concurrentPerform(iterations: 8) { pairs[$0].resolver.fulfill($0) }
            #expect(winner.outcome?.value != nil)
        }
        let queue = DispatchQueue(label: "workers", attributes: .concurrent)
        let done = DispatchSemaphore(value: 0)
        let all = when(fulfilled: 0..<5_000, limit: 16) { n in
            Promise<Int> { r in queue.async { r.fulfill(n) } }
        }
        all.finally { done.signal() }
        done.wait()
        #expect(all.outcome?.value == Array(0..<5_000))
    }

    @Test("progress reported from many threads")
    func progressAcrossThreads() {
        let (p, r) = Promise<Int>.pending()
        let heard = Counter()
        p.onProgress { _ in heard.increment() }
        DispatchQueue.concurrentPerform(iterations: Self.threads) { i in
            for step in 0..<100 { r.progress(Double(step) / 100) }
            if i == 0 { r.fulfill(1) }
        }
        #expect(heard.current >= 1)
        #expect(p.progress == 1)
    }
}
