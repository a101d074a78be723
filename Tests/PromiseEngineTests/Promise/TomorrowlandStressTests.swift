import Dispatch
import PromiseTestSupport
import Synchronization
import Testing

@testable import PromiseEngine

// Invalidation tokens, delayed and shared promises with many threads at
// once. `.ci/run` runs this suite under ThreadSanitizer (`--filter Stress`
// matches the type's name).

@Suite("Stress: tokens, delayed and shared promises")
struct TomorrowlandStressTests {
    static let threads = 8

    @Test(
        "a token invalidated while the promise settles and handlers register: each handler runs at most once, and ran exactly when its promise is fulfilled"
    )
    func invalidateWhileSettling() {
        for _ in 0..<500 {
            let token = PromiseInvalidationToken()
            let (p, r) = Promise<Int>.pending()
            let runs = Lock<[Int: Int]>([:])
            let made = Lock<[(Int, Promise<Int>)]>([])
            DispatchQueue.concurrentPerform(iterations: Self.threads) { thread in
                switch thread {
                case 0: r.fulfill(1)
                case 1: token.invalidate()
                default:
                    for n in 0..<8 {
                        let id = thread * 100 + n
                        let mapped = p.map(token: token) { value -> Int in
                            runs.withLock { $0[id, default: 0] += 1 }
                            return value
                        }
                        made.withLock { $0.append((id, mapped)) }
                    }
                }
            }
            let ran = runs.withLock { $0 }
            #expect(ran.values.allSatisfy { $0 == 1 })
            for (id, mapped) in made.withLock({ $0 }) {
                let state = mapped.state_
                #expect(state == (ran[id] == nil ? "cancelled" : "fulfilled(1)"), "handler \(id)")
            }
        }
    }

    @Test("promises registered for cancellation from many threads: every one registered before the invalidation is cancelled")
    func registerWhileInvalidating() {
        for _ in 0..<200 {
            let token = PromiseInvalidationToken(invalidateOnDeinit: false)
            let registered = Lock<[Promise<Int>]>([])
            DispatchQueue.concurrentPerform(iterations: Self.threads) { thread in
                for _ in 0..<16 {
                    let (p, r) = Promise<Int>.pending()
                    r.onCancel { r.cancel() }
                    p.requestCancelOnInvalidate(token)
                    registered.withLock { $0.append(p) }
                }
                if thread == 0 { token.cancelWithoutInvalidating() }
            }
            token.invalidate()
            #expect(registered.withLock { $0 }.allSatisfy { $0.state_ == "cancelled" })
        }
    }

    @Test("chains built and invalidated on many threads: every chained token is invalidated once per invalidation of the root")
    func chainsAcrossThreads() {
        for _ in 0..<200 {
            let root = PromiseInvalidationToken()
            let leaves = (0..<Self.threads * 4).map { _ in PromiseInvalidationToken() }
            DispatchQueue.concurrentPerform(iterations: Self.threads) { thread in
                for index in stride(from: thread, to: leaves.count, by: Self.threads) {
                    leaves[index].chainInvalidation(from: root)
                }
            }
            DispatchQueue.concurrentPerform(iterations: 2) { _ in root.invalidate() }
            #expect(leaves.allSatisfy { $0.core.generation.load(ordering: .relaxed) == 2 })
        }
    }

    @Test("a delayed promise read from many threads at once starts its work once, and all get the same promise")
    func delayedStartsOnce() {
        for _ in 0..<1_000 {
            let starts = Counter()
            let delayed = DelayedPromise<Int> { resolver in
                starts.increment()
                resolver.fulfill(7)
            }
            let seen = Lock<Set<ObjectIdentifier>>([])
            DispatchQueue.concurrentPerform(iterations: Self.threads) { _ in
                let promise = delayed.promise
                seen.withLock { _ = $0.insert(ObjectIdentifier(promise)) }
                _ = promise.map { $0 + 1 }
            }
            #expect(starts.current == 1)
            #expect(seen.withLock { $0.count } == 1)
            #expect(delayed.promise.state_ == "fulfilled(7)")
        }
    }

    @Test("children of a shared promise cancelling from many threads: the callback runs once, then the root is asked once")
    func sharedCancelledFromManyThreads() {
        for _ in 0..<1_000 {
            let callbacks = Counter()
            let rootCancels = Counter()
            let (root, rootResolver) = Promise<Int>.pending()
            rootResolver.onCancel {
                rootCancels.increment()
                rootResolver.cancel()
            }
            let shared = root.propagatingCancellation { _ in callbacks.increment() }
            let children = (0..<Self.threads).map { _ in shared.makeChild() }
            DispatchQueue.concurrentPerform(iterations: Self.threads) { children[$0].cancel() }
            #expect(callbacks.current == 1)
            #expect(rootCancels.current == 1)
            #expect(children.allSatisfy { $0.state_ == "cancelled" })
        }
    }

    @Test("children added and cancelled on many threads while the root settles: the outcome is one of the two, the callback at most once")
    func sharedRacingTheRoot() {
        for _ in 0..<500 {
            let callbacks = Counter()
            let (root, rootResolver) = Promise<Int>.pending()
            rootResolver.onCancel { rootResolver.cancel() }
            let shared = root.propagatingCancellation { _ in callbacks.increment() }
            // The children come and go: between one's cancel and the next
            // one's arrival, none may want the value, and the shared promise
            // is then cancelled; children made after that are cancelled at once.
            DispatchQueue.concurrentPerform(iterations: Self.threads + 1) { thread in
                if thread == Self.threads {
                    rootResolver.fulfill(5)
                } else {
                    for _ in 0..<4 { shared.makeChild().cancel() }
                }
            }
            #expect(callbacks.current <= 1)
            let state = shared.state_
            #expect(state == "fulfilled(5)" || state == "cancelled")
            #expect(state != "cancelled" || callbacks.current == 1)
        }
    }
}
