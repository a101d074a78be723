import PromiseTestSupport
import Testing

@testable import PromiseEngine

// OMPromises' `join` and `chain:initial:`, with OMPromises' progress: each
// step an equal share.

@Suite("join and chain")
struct ChainTests {
    @Test("join unwraps one level: the inner promise's outcome")
    func joinOutcome() {
        let (outer, outerResolver) = Promise<Promise<Int>>.pending()
        let (inner, innerResolver) = Promise<Int>.pending()
        let joined = outer.join()
        outerResolver.fulfill(inner)
        #expect(joined.state_ == "pending")
        innerResolver.fulfill(7)
        #expect(joined.state_ == "fulfilled(7)")
        #expect(Promise<Promise<Int>>(error: TestError(1)).join().state_ == "rejected(TestError(1))")
        #expect(Promise(value: Promise<Int>(error: TestError(2))).join().state_ == "rejected(TestError(2))")
    }

    @Test("join's progress: the outer promise for the first half, the inner one for the second")
    func joinProgress() {
        let (outer, outerResolver) = Promise<Promise<Int>>.pending()
        let (inner, innerResolver) = Promise<Int>.pending()
        let joined = outer.join()
        let heard = Recorder<Double>()
        joined.onProgress { heard.record($0) }
        outerResolver.progress(0.5)
        outerResolver.fulfill(inner)
        innerResolver.progress(0.5)
        innerResolver.fulfill(1)
        #expect(heard.events == [0.25, 0.5, 0.75, 1])
    }

    @Test("cancelling a join asks the inner promise once it runs")
    func joinCancel() {
        let log = Recorder<String>()
        let (inner, _) = cancellableWork("inner", log)
        let joined = Promise(value: inner).join()
        joined.cancel()
        #expect(log.events == ["cancel inner"])
        #expect(joined.state_ == "cancelled")
    }

    @Test("chain passes each handler's value to the next, from an initial value")
    func chainValues() {
        let seen = Recorder<Int>()
        let handlers: [@Sendable (Int) throws -> Promise<Int>] = [
            {
                seen.record($0)
                return .value($0 + 1)
            },
            {
                seen.record($0)
                return .value($0 * 10)
            },
            {
                seen.record($0)
                return .value($0 - 1)
            },
        ]
        #expect(chain(handlers, initial: 1).state_ == "fulfilled(19)")
        #expect(seen.events == [1, 2, 20])
        #expect(chain([], initial: 5).state_ == "fulfilled(5)")
    }

    @Test("the first failure skips the handlers after it")
    func chainFailure() {
        let seen = Recorder<String>()
        let handlers: [@Sendable (Int) throws -> Promise<Int>] = [
            { _ in
                seen.record("a")
                throw TestError(1)
            },
            { v in
                seen.record("b")
                return .value(v)
            },
        ]
        #expect(chain(handlers, initial: 0).state_ == "rejected(TestError(1))")
        #expect(seen.events == ["a"])
    }

    @Test("chain's progress: each handler's promise an equal share")
    func chainProgress() {
        let resolvers = Lock<[Resolver<Int>]>([])
        let step: @Sendable (Int) throws -> Promise<Int> = { _ in
            let (promise, resolver) = Promise<Int>.pending()
            resolvers.withLock { $0.append(resolver) }
            return promise
        }
        let result = chain([step, step, step], initial: 0)
        let heard = Recorder<Double>()
        result.onProgress { heard.record(($0 * 6).rounded()) }  // in sixths
        for n in 0..<3 {
            let resolver = resolvers.withLock { $0[n] }
            resolver.progress(0.5)
            resolver.fulfill(n)
        }
        #expect(result.state_ == "fulfilled(2)")
        let sixths: [Double] = [1, 2, 3, 4, 5, 6]
        #expect(heard.events == sixths)
    }

    @Test("from a promise, the initial promise is the first of n + 1 steps")
    func chainFromPromise() {
        let (initial, initialResolver) = Promise<Int>.pending()
        let result = chain([{ .value($0 + 1) }], initial: initial)
        let heard = Recorder<Double>()
        result.onProgress { heard.record($0) }
        initialResolver.progress(0.5)
        initialResolver.fulfill(1)
        #expect(heard.events == [0.25, 0.5, 1])
        #expect(result.state_ == "fulfilled(2)")
    }

    @Test("cancelling a chain asks the running step")
    func chainCancel() {
        let log = Recorder<String>()
        let (work, _) = cancellableWork("step 2", log)
        let result = chain([{ .value($0) }, { _ in work }], initial: 1)
        result.cancel()
        #expect(log.events == ["cancel step 2"])
        #expect(result.state_ == "cancelled")
    }
}
