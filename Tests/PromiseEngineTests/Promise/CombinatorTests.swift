import PromiseTestSupport
import Testing

@testable import PromiseEngine

@Suite("Combinators")
struct CombinatorTests {
    // MARK: when(fulfilled:)

    @Test("when(fulfilled:) gives every value in input order, whatever order they settle in")
    func whenAllOrder() {
        let pairs = (0..<3).map { _ in Promise<Int>.pending() }
        let all = when(fulfilled: pairs.map(\.promise))
        pairs[2].resolver.fulfill(2)
        pairs[0].resolver.fulfill(0)
        #expect(all.state_ == "pending")
        pairs[1].resolver.fulfill(1)
        #expect(all.state_ == "fulfilled([0, 1, 2])")
    }

    @Test("when(fulfilled:) of nothing is fulfilled with nothing")
    func whenEmpty() {
        #expect(when(fulfilled: [Promise<Int>]()).state_ == "fulfilled([])")
    }

    @Test("when(fulfilled:) fails with the first failure; siblings run on by default")
    func whenFirstFailure() {
        let (a, ra) = Promise<Int>.pending()
        let (b, rb) = Promise<Int>.pending()
        let (c, _) = Promise<Int>.pending()
        let all = when(fulfilled: [a, b, c])
        rb.reject(TestError(2))
        ra.reject(TestError(1))
        #expect(all.state_ == "rejected(TestError(2))")
        #expect(!c.isCancelRequested)
    }

    @Test("when(fulfilled:) can cancel the siblings of the first failure")
    func whenCancelsSiblings() {
        let killed = Recorder<String>()
        let (a, ra) = Promise<Int>.pending()
        let b = Promise<Int> { r in
            r.onCancel {
                killed.record("b")
                r.cancel()
            }
        }
        let c = Promise<Int> { r in
            r.onCancel {
                killed.record("c")
                r.cancel()
            }
        }
        let all = when(fulfilled: [a, b, c], cancelOthersOnFailure: true)
        ra.reject(TestError(1))
        #expect(all.state_ == "rejected(TestError(1))")
        #expect(killed.events == ["b", "c"])
        #expect(b.state_ == "cancelled")
    }

    @Test("when(fulfilled:) over different types, with one generic function")
    func whenPack() {
        let (name, rn) = Promise<String>.pending()
        let all = when(fulfilled: Promise(value: 1), name, Promise(value: [true]))
        rn.fulfill("x")
        let values = all.outcome?.value
        #expect(values?.0 == 1)
        #expect(values?.1 == "x")
        #expect(values?.2 == [true])
    }

    @Test("when(fulfilled:) over different types fails with the first failure")
    func whenPackFails() {
        let all = when(fulfilled: Promise(value: 1), Promise<String>(error: TestError(4)))
        #expect(all.outcome?.error as? TestError == TestError(4))
    }

    @Test("when(fulfilled:) by key gives a dictionary of values")
    func whenKeyed() {
        let all = when(fulfilled: ["a": Promise(value: 1), "b": Promise(value: 2)])
        #expect(all.outcome?.value == ["a": 1, "b": 2])
        let failed = when(fulfilled: ["a": Promise(value: 1), "b": Promise<Int>(error: TestError(3))])
        #expect(failed.outcome?.error as? TestError == TestError(3))
    }

    @Test("when(resolved:) by key gives every outcome")
    func whenResolvedKeyed() {
        let all = when(resolved: ["a": Promise(value: 1), "b": Promise<Int>(error: TestError(3))])
        let outcomes = all.outcome?.value
        #expect(outcomes?["a"]?.value == 1)
        #expect(outcomes?["b"]?.error as? TestError == TestError(3))
    }

    // MARK: when(resolved:)

    @Test("when(resolved:) waits for every outcome and never fails")
    func whenResolved() {
        let (a, ra) = Promise<Int>.pending()
        let all = when(resolved: [a, Promise(error: TestError(1)), Promise.cancelled()])
        #expect(all.state_ == "pending")
        ra.fulfill(1)
        let outcomes = all.outcome?.value?.map(\.testDescription)
        #expect(outcomes == ["fulfilled(1)", "rejected(TestError(1))", "cancelled"])
    }

    // MARK: race

    @Test("race settles as the first to settle and cancels the others")
    func raceFirst() {
        let cancelled = Recorder<String>()
        let (a, ra) = Promise<Int>.pending()
        let b = Promise<Int> { r in
            r.onCancel {
                cancelled.record("b")
                r.cancel()
            }
        }
        let winner = race([a, b])
        ra.fulfill(1)
        #expect(winner.state_ == "fulfilled(1)")
        #expect(cancelled.events == ["b"])
    }

    @Test("race: a first failure decides too")
    func raceFailure() {
        let (a, ra) = Promise<Int>.pending()
        let (b, rb) = Promise<Int>.pending()
        let winner = race([a, b])
        ra.reject(TestError(1))
        rb.fulfill(2)
        #expect(winner.state_ == "rejected(TestError(1))")
    }

    @Test("race and any of nothing reject")
    func emptyRace() {
        #expect(race([Promise<Int>]()).outcome?.error as? PromiseError == .noInputs)
        #expect(any([Promise<Int>]()).outcome?.error as? PromiseError == .noInputs)
    }

    // MARK: any

    @Test("any gives the first value, skipping failures, and cancels the rest")
    func anyFirstFulfilled() {
        let cancelled = Recorder<String>()
        let (a, ra) = Promise<Int>.pending()
        let (b, rb) = Promise<Int>.pending()
        let c = Promise<Int> { r in
            r.onCancel {
                cancelled.record("c")
                r.cancel()
            }
        }
        let first = any([a, b, c])
        ra.reject(TestError(1))
        #expect(first.state_ == "pending")
        rb.fulfill(2)
        #expect(first.state_ == "fulfilled(2)")
        #expect(cancelled.events == ["c"])
    }

    @Test("any fails with every error, in input order, when all fail")
    func anyAllFail() {
        let (a, ra) = Promise<Int>.pending()
        let (b, rb) = Promise<Int>.pending()
        let first = any([a, b])
        rb.reject(TestError(2))
        ra.reject(TestError(1))
        let error = first.outcome?.error as? AllFailedError
        #expect(error?.errors.compactMap { $0 as? TestError } == [TestError(1), TestError(2)])
        #expect(error?.description == "all 2 promises failed: TestError(1); TestError(2)")
    }

    // MARK: bounded

    @Test("the bounded form keeps at most N in flight and gives values in order")
    func boundedLimit() {
        let resolvers = Recorder<Resolver<Int>>()
        let inFlight = Counter()
        let peak = Recorder<Int>()
        let all = when(fulfilled: 0..<10, limit: 3) { n -> Promise<Int> in
            let (p, r) = Promise<Int>.pending()
            peak.record(inFlight.increment())
            resolvers.record(r)
            return p.map { $0 * 10 }
        }
        var next = 0
        while next < resolvers.count {
            #expect(resolvers.count - next <= 3)
            _ = inFlight.current
            resolvers.events[next].fulfill(next)
            next += 1
        }
        #expect(resolvers.count == 10)
        #expect(all.outcome?.value == (0..<10).map { $0 * 10 })
    }

    @Test("the bounded form takes elements lazily: only as slots free up")
    func boundedLazy() {
        let taken = Counter()
        let elements = (0..<1_000_000).lazy.map { n -> Int in
            taken.increment()
            return n
        }
        let pending = Recorder<Resolver<Void>>()
        let all = when(fulfilled: elements, limit: 4) { _ -> Promise<Void> in
            let (p, r) = Promise<Void>.pending()
            pending.record(r)
            return p
        }
        #expect(taken.current == 4)
        all.cancel()
        for r in pending.events { r.cancel() }
        #expect(all.state_ == "cancelled")
        #expect(taken.current == 4)
    }

    @Test("the bounded form stops at the first failure and, asked to, cancels what is in flight")
    func boundedFailure() {
        let cancelled = Counter()
        let started = Counter()
        let all = when(fulfilled: 0..<100, limit: 2, cancelOthersOnFailure: true) { n -> Promise<Int> in
            started.increment()
            if n == 1 { return Promise(error: TestError(1)) }
            return Promise { r in
                r.onCancel {
                    cancelled.increment()
                    r.cancel()
                }
            }
        }
        #expect(all.state_ == "rejected(TestError(1))")
        #expect(started.current == 2)
        #expect(cancelled.current == 1)
    }

    @Test("by default, as the array form, the bounded form lets what is in flight run to its end")
    func boundedFailureDefault() {
        let cancelled = Counter()
        let (first, firstResolver) = Promise<Int>.pending()
        firstResolver.onCancel { cancelled.increment() }
        let all = when(fulfilled: 0..<100, limit: 2) { n -> Promise<Int> in
            if n == 1 { return Promise(error: TestError(1)) }
            return first
        }
        #expect(all.isPending, "it waits for the one in flight")
        #expect(cancelled.current == 0)
        firstResolver.fulfill(0)
        #expect(all.state_ == "rejected(TestError(1))")
        #expect(cancelled.current == 0)
    }

    @Test("the bounded resolved form runs everything and reports every outcome")
    func boundedResolved() {
        let all = when(resolved: 0..<5, limit: 2) { n -> Promise<Int> in
            n % 2 == 0 ? Promise(value: n) : Promise(error: TestError(n))
        }
        #expect(
            all.outcome?.value?.map(\.testDescription) == [
                "fulfilled(0)", "rejected(TestError(1))", "fulfilled(2)", "rejected(TestError(3))", "fulfilled(4)",
            ])
    }

    @Test("the bounded form of nothing is fulfilled with nothing")
    func boundedEmpty() {
        #expect(when(fulfilled: [Int](), limit: 3) { Promise(value: $0) }.state_ == "fulfilled([])")
    }

    @Test("a limit below 1 rejects both bounded forms and starts nothing")
    func boundedBadLimit() {
        let started = Counter()
        let fulfilled = when(fulfilled: 0..<3, limit: 0) { n -> Promise<Int> in
            started.increment()
            return Promise(value: n)
        }
        let resolved = when(resolved: 0..<3, limit: -4) { n -> Promise<Int> in
            started.increment()
            return Promise(value: n)
        }
        #expect(fulfilled.state_ == "rejected(bad input: a concurrency limit of 0: at least 1 must be allowed in flight)")
        #expect(resolved.outcome?.error as? PromiseError == .badInput("a concurrency limit of -4: at least 1 must be allowed in flight"))
        #expect(started.current == 0)
    }

    // MARK: iterate

    @Test("iterate passes the previous value and the step number until stop")
    func iterateSteps() {
        let seen = Recorder<String>()
        let result = iterate(from: 1) { previous, number -> Promise<Iteration<Int>> in
            seen.record("\(number):\(previous)")
            return Promise(value: number == 3 ? .stop(previous * 2) : .next(previous * 2))
        }
        #expect(seen.events == ["0:1", "1:2", "2:4", "3:8"])
        #expect(result.state_ == "fulfilled(16)")
    }

    @Test("iterate continues across pending steps and fails with a failing step")
    func iterateAsync() {
        let resolvers = Recorder<Resolver<Iteration<Int>>>()
        let result = iterate(from: 0) { _, _ -> Promise<Iteration<Int>> in
            let (p, r) = Promise<Iteration<Int>>.pending()
            resolvers.record(r)
            return p
        }
        resolvers.events[0].fulfill(.next(1))
        resolvers.events[1].reject(TestError(5))
        #expect(result.state_ == "rejected(TestError(5))")
        #expect(resolvers.count == 2)
    }

    @Test("cancelling iterate cancels the step in flight")
    func iterateCancel() {
        let result = iterate(from: 0) { _, _ in
            Promise<Iteration<Int>> { r in r.onCancel { r.cancel() } }
        }
        result.cancel()
        #expect(result.state_ == "cancelled")
    }
}
