import Dispatch
import PromiseTestSupport
import Testing

@testable import PromiseEngine

// Tomorrowland's documented behaviours of `DelayedPromise`.

@Suite("Delayed promises")
struct DelayedPromiseTests {
    @Test("the work does not start until the promise is asked for, then settles it")
    func startsWhenAsked() {
        let started = Counter()
        let delayed = DelayedPromise<Int> { resolver in
            started.increment()
            resolver.fulfill(42)
        }
        #expect(started.current == 0)
        #expect(delayed.promise.state_ == "fulfilled(42)")
        #expect(started.current == 1)
    }

    @Test("every read gives the same promise, and the work runs once")
    func samePromise() {
        let started = Counter()
        let delayed = DelayedPromise<Int> { _ in started.increment() }
        let copy = delayed
        #expect(delayed.promise === copy.promise)
        #expect(delayed == copy)
        #expect(delayed != DelayedPromise<Int> { _ in })
        #expect(started.current == 1)
    }

    @Test("the work runs on its context; .nowOr runs it on the wrapped context")
    func onContext() {
        let work = MarkedQueue("work")
        let seen = Recorder<String>()
        for context in [work.context, .nowOr(work.context)] {
            let delayed = DelayedPromise<Int>(on: context) { resolver in
                seen.record("on queue: \(work.isCurrent), now: \(PromiseContext.isExecutingNow)")
                resolver.fulfill(1)
            }
            let promise = delayed.promise
            work.queue.sync {}
            #expect(promise.state_ == "fulfilled(1)")
        }
        #expect(seen.events == ["on queue: true, now: false", "on queue: true, now: false"])
    }

    @Test("the body is released once it ran, or with the delayed promise if it never did")
    func bodyReleased() {
        weak var ranCapture: Tracked?
        weak var neverCapture: Tracked?
        var delayed: DelayedPromise<Int>?
        do {
            let ran = Tracked(1)
            let never = Tracked(2)
            ranCapture = ran
            neverCapture = never
            delayed = DelayedPromise<Int> { resolver in resolver.fulfill(ran.id) }
            _ = DelayedPromise<Int> { resolver in resolver.fulfill(never.id) }
        }
        #expect(neverCapture == nil)
        #expect(ranCapture != nil)
        #expect(delayed?.promise.state_ == "fulfilled(1)")
        #expect(ranCapture == nil)
    }

    @Test("a thrown error rejects; cancelling reaches the work's cancel handler")
    func throwsAndCancels() {
        #expect(DelayedPromise<Int> { _ in throw TestError(4) }.promise.state_ == "rejected(TestError(4))")
        let log = Recorder<String>()
        let delayed = DelayedPromise<Int> { resolver in
            resolver.onCancel {
                log.record("cancel")
                resolver.cancel()
            }
        }
        delayed.promise.makeChild().cancel()
        #expect(log.events == ["cancel"])
        #expect(delayed.promise.state_ == "cancelled")
    }
}
