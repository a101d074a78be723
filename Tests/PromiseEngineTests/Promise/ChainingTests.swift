import PromiseTestSupport
import Testing

@testable import PromiseEngine

@Suite("Chaining")
struct ChainingTests {
    @Test("already settled constructors")
    func constructors() {
        #expect(Promise(value: 3).state_ == "fulfilled(3)")
        #expect(Promise<Int>(error: TestError(1)).state_ == "rejected(TestError(1))")
        #expect(Promise<Int>.cancelled().state_ == "cancelled")
        #expect(Promise<Int>(outcome: .fulfilled(2)).state_ == "fulfilled(2)")
    }

    @Test("a resolver body runs at once; a thrown error rejects")
    func resolverBody() {
        let ran = Promise<Int> { $0.fulfill(1) }
        let threw = Promise<Int> { _ in throw TestError(2) }
        #expect(ran.state_ == "fulfilled(1)")
        #expect(threw.state_ == "rejected(TestError(2))")
    }

    @Test("firstly starts a chain; a throw rejects it")
    func firstlyStarts() {
        #expect(firstly { Promise(value: 1) }.map { $0 + 1 }.state_ == "fulfilled(2)")
        #expect(firstly { () throws -> Promise<Int> in throw TestError(3) }.state_ == "rejected(TestError(3))")
    }

    @Test("then continues with a returned promise")
    func thenContinues() {
        let (inner, resolver) = Promise<String>.pending()
        let chained = Promise(value: 2).then { n in inner.map { "\($0)\(n)" } }
        #expect(chained.state_ == "pending")
        resolver.fulfill("x")
        #expect(chained.state_ == "fulfilled(x2)")
    }

    @Test("compactMap rejects a nil with a typed error")
    func compactMapNil() {
        let none = Promise(value: "x").compactMap { Int($0) }
        let some = Promise(value: "12").compactMap { Int($0) }
        #expect(none.outcome?.error as? PromiseError == .nilValue)
        #expect(some.state_ == "fulfilled(12)")
    }

    @Test("done consumes the value; get looks and passes it on")
    func doneAndGet() {
        let seen = Recorder<Int>()
        let done = Promise(value: 5).done { seen.record($0) }
        let got = Promise(value: 6).get { seen.record($0) }
        #expect(done.state_ == "fulfilled(())")
        #expect(got.state_ == "fulfilled(6)")
        #expect(seen.events == [5, 6])
    }

    @Test("get and done that throw reject")
    func getThrows() {
        #expect(Promise(value: 1).get { _ in throw TestError(7) }.state_ == "rejected(TestError(7))")
        #expect(Promise(value: 1).done { _ in throw TestError(8) }.state_ == "rejected(TestError(8))")
    }

    @Test("tap sees every outcome and passes it on")
    func tapSeesAll() {
        let seen = Recorder<String>()
        let a = Promise(value: 1).tap { seen.record($0.testDescription) }
        let b = Promise<Int>(error: TestError(2)).tap { seen.record($0.testDescription) }
        let c = Promise<Int>.cancelled().tap { seen.record($0.testDescription) }
        #expect(seen.events == ["fulfilled(1)", "rejected(TestError(2))", "cancelled"])
        #expect([a.state_, b.state_, c.state_] == ["fulfilled(1)", "rejected(TestError(2))", "cancelled"])
    }

    @Test("an error skips every value handler until the next catch or recover")
    func errorSkips() {
        let ran = Recorder<String>()
        let result = Promise(value: 1)
            .map { _ -> Int in throw TestError(1) }
            .map { _ in
                ran.record("map")
                return 2
            }
            .then { _ in
                ran.record("then")
                return Promise(value: 3)
            }
            .get { _ in ran.record("get") }
            .recover { error -> Int in
                ran.record("recover \(error)")
                return 10
            }
            .map { $0 + 1 }
        #expect(ran.events == ["recover TestError(1)"])
        #expect(result.state_ == "fulfilled(11)")
    }

    @Test("catch handles an error and ends the chain fulfilled; it does not run on success")
    func catchHandles() {
        let seen = Recorder<String>()
        let failed = Promise<Int>(error: TestError(1)).catch { seen.record("\($0)") }
        let fine = Promise(value: 1).catch { seen.record("unexpected \($0)") }
        #expect(seen.events == ["TestError(1)"])
        #expect(failed.state_ == "fulfilled(())")
        #expect(fine.state_ == "fulfilled(())")
    }

    @Test("a catch that throws rejects")
    func catchThrows() {
        #expect(Promise<Int>(error: TestError(1)).catch { _ in throw TestError(2) }.state_ == "rejected(TestError(2))")
    }

    @Test("recover with a promise; recover can rethrow to pass an error on")
    func recoverPromise() {
        let recovered = Promise<Int>(error: TestError(1)).recover { _ in Promise(value: 4) }
        let passed = Promise<Int>(error: TestError(1)).recover { error -> Promise<Int> in throw error }
        #expect(recovered.state_ == "fulfilled(4)")
        #expect(passed.state_ == "rejected(TestError(1))")
    }

    @Test("catch and recover do not see cancellation")
    func cancellationNotCaught() {
        let seen = Recorder<String>()
        let c = Promise<Int>.cancelled().recover { _ in
            seen.record("recover")
            return 1
        }
        let d = Promise<Int>.cancelled().catch { _ in seen.record("catch") }
        #expect(seen.events.isEmpty)
        #expect(c.state_ == "cancelled")
        #expect(d.state_ == "cancelled")
    }

    @Test("ensure runs on every outcome and passes it on")
    func ensureRunsAlways() {
        let runs = Counter()
        let a = Promise(value: 1).ensure { runs.increment() }
        let b = Promise<Int>(error: TestError(1)).ensure { runs.increment() }
        let c = Promise<Int>.cancelled().ensure { runs.increment() }
        #expect(runs.current == 3)
        #expect([a.state_, b.state_, c.state_] == ["fulfilled(1)", "rejected(TestError(1))", "cancelled"])
    }

    @Test("an ensure that throws fails a fulfilled chain; an earlier error stays")
    func ensureThrows() {
        let a = Promise(value: 1).ensure { throw TestError(9) }
        let b = Promise<Int>(error: TestError(1)).ensure { throw TestError(9) }
        #expect(a.state_ == "rejected(TestError(9))")
        #expect(b.state_ == "rejected(TestError(1))")
    }

    @Test("ensureThen waits for its promise before passing the outcome on")
    func ensureThenWaits() {
        let (cleanup, done) = Promise<Void>.pending()
        let result = Promise(value: 3).ensureThen { cleanup }
        #expect(result.state_ == "pending")
        done.fulfill()
        #expect(result.state_ == "fulfilled(3)")
    }

    @Test("ensureThen: its failure fails a fulfilled chain; with an earlier error, both are reported")
    func ensureThenFailure() {
        let secondary = Recorder<String>()
        let a = Promise(value: 3).ensureThen { Promise(error: TestError(5)) }
        let b = Promise<Int>(error: TestError(1)).ensureThen(
            onSecondaryError: { secondary.record("\($0)") },
            {
                Promise(error: TestError(5))
            })
        #expect(a.state_ == "rejected(TestError(5))")
        #expect(b.state_ == "rejected(TestError(1))")
        #expect(secondary.events == ["TestError(5)"])
    }

    @Test("finally runs at the end of a chain on every outcome")
    func finallyRuns() {
        let runs = Counter()
        Promise(value: 1).finally { runs.increment() }
        Promise<Int>(error: TestError()).catch { _ in }.finally { runs.increment() }
        Promise<Int>.cancelled().finally { runs.increment() }
        #expect(runs.current == 3)
    }

    @Test("a handler throwing CancellationError cancels")
    func cancellationErrorCancels() {
        #expect(Promise(value: 1).map { _ -> Int in throw CancellationError() }.state_ == "cancelled")
    }

    @Test("asVoid and description")
    func asVoidAndDescription() {
        #expect(Promise(value: 1).asVoid().state_ == "fulfilled(())")
        #expect(Promise(value: 1).description == "Promise<Int>(fulfilled(1))")
        #expect(Promise<Int>.pending().promise.description == "Promise<Int>(pending)")
    }
}
