import Dispatch
import PromiseTestSupport
import Testing

@testable import PromiseEngine

/// A serial queue that code can ask whether it runs on.
struct MarkedQueue: Sendable {
    let queue: DispatchQueue
    private let key = DispatchSpecificKey<Bool>()

    init(_ label: String) {
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: key, value: true)
    }

    /// Whether the caller runs on this queue.
    var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == true }
    /// Handlers on this queue.
    var context: PromiseContext { .queue(queue) }
}

@Suite("Executors")
struct ExecutorTests {
    @Test("inline handlers run on the settling thread, at once")
    func inline() {
        let (p, r) = Promise<Int>.pending()
        let ranOnQueue = Counter()
        let key = DispatchSpecificKey<Int>()
        let queue = DispatchQueue(label: "settler")
        queue.setSpecific(key: key, value: 1)
        let chained = p.map { value -> Int in
            if DispatchQueue.getSpecific(key: key) == 1 { ranOnQueue.increment() }
            return value
        }
        queue.sync { r.fulfill(1) }
        #expect(chained.state_ == "fulfilled(1)")
        #expect(ranOnQueue.current == 1)
    }

    @Test("handlers given a queue run on that queue")
    func onQueue() async throws {
        let key = DispatchSpecificKey<Int>()
        let queue = DispatchQueue(label: "handlers")
        queue.setSpecific(key: key, value: 7)
        let seen = try await Promise(value: 1)
            .map(on: .queue(queue)) { _ in DispatchQueue.getSpecific(key: key) }
            .value
        #expect(seen == 7)
    }

    @Test("progress listeners can run on a queue")
    func progressOnQueue() async {
        let (p, r) = Promise<Int>.pending()
        let queue = DispatchQueue(label: "progress")
        let heard = Recorder<Double>()
        p.onProgress(on: .queue(queue)) { heard.record($0) }
        r.progress(0.5)
        queue.sync {}
        #expect(heard.events == [0.5])
    }

    @Test("`.immediate` is `.inline`: at once, on the settling thread")
    func immediate() {
        let (p, r) = Promise<Int>.pending()
        let mapped = p.map(on: .immediate) { $0 + 1 }
        r.fulfill(1)
        #expect(mapped.state_ == "fulfilled(2)")
    }
}

@Suite("Executors: .nowOr and isExecutingNow")
struct NowOrTests {
    @Test("on a settled promise, a .nowOr handler runs before the registering call returns, executing now")
    func settledRunsNow() {
        let queue = DispatchQueue(label: "later")
        let seen = Recorder<String>()
        let mapped = Promise(value: 2).map(on: .nowOr(.queue(queue))) { value -> Int in
            seen.record("handler, now: \(PromiseContext.isExecutingNow)")
            return value * 10
        }
        seen.record("returned, now: \(PromiseContext.isExecutingNow)")
        #expect(mapped.state_ == "fulfilled(20)")
        #expect(seen.events == ["handler, now: true", "returned, now: false"])
    }

    @Test("on a pending promise, a .nowOr handler runs later on its context, not executing now")
    func pendingRunsOnContext() {
        let later = MarkedQueue("later")
        let seen = Recorder<String>()
        let (p, r) = Promise<Int>.pending()
        let done = p.done(on: .nowOr(later.context)) { _ in
            seen.record("on queue: \(later.isCurrent), now: \(PromiseContext.isExecutingNow)")
        }
        r.fulfill(1)
        later.queue.sync {}
        #expect(done.state_ == "fulfilled(())")
        #expect(seen.events == ["on queue: true, now: false"])
    }

    @Test("isExecutingNow is false in .inline and .queue handlers")
    func falseElsewhere() {
        let queue = DispatchQueue(label: "q")
        let seen = Recorder<Bool>()
        _ = Promise(value: 1).done { _ in seen.record(PromiseContext.isExecutingNow) }
        _ = Promise(value: 1).done(on: .queue(queue)) { _ in seen.record(PromiseContext.isExecutingNow) }
        queue.sync {}
        #expect(seen.events == [false, false])
    }

    @Test("an .inline handler that a now-running handler settles synchronously inherits isExecutingNow; one that runs later does not")
    func nestedInherits() {
        let seen = Recorder<String>()
        let (inner, innerResolver) = Promise<Int>.pending()
        _ = inner.done(on: .immediate) { _ in seen.record("nested inline, now: \(PromiseContext.isExecutingNow)") }
        let (later, laterResolver) = Promise<Int>.pending()
        _ = later.done { _ in seen.record("later inline, now: \(PromiseContext.isExecutingNow)") }
        _ = Promise(value: 1).done(on: .nowOr(.inline)) { _ in
            innerResolver.fulfill(1)
        }
        laterResolver.fulfill(1)
        #expect(seen.events == ["nested inline, now: true", "later inline, now: false"])
    }

    @Test("a token invalidated before a .nowOr registration on a settled promise: the handler does not run")
    func nowOrWithToken() {
        let token = PromiseInvalidationToken()
        let registered = Promise(value: 1)
        let ran = Counter()
        let (p, r) = Promise<Int>.pending()
        let pending = p.map(on: .nowOr(.inline), token: token) { _ in ran.increment() }
        token.invalidate()
        r.fulfill(1)
        let settled = registered.map(on: .nowOr(.inline), token: token) { _ in ran.increment() }
        #expect(ran.current == 1, "registered after the invalidation: runs")
        #expect(pending.state_ == "cancelled")
        #expect(settled.state_ == "fulfilled(1)")
    }

    @Test("a .nowOr inside a .nowOr on a pending promise runs on the innermost context")
    func nestedNowOr() {
        let inner = MarkedQueue("inner")
        let (p, r) = Promise<Int>.pending()
        let mapped = p.map(on: .nowOr(.nowOr(inner.context))) { _ in inner.isCurrent }
        r.fulfill(1)
        inner.queue.sync {}
        #expect(mapped.outcome?.value == true)
    }

    @Test("progress listeners on .nowOr run on its context")
    func progressOnNowOr() {
        let queue = DispatchQueue(label: "progress")
        let (p, r) = Promise<Int>.pending()
        let heard = Recorder<Double>()
        p.onProgress(on: .nowOr(.queue(queue))) { heard.record($0) }
        r.progress(0.25)
        queue.sync {}
        #expect(heard.events == [0.25])
    }
}
