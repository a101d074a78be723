import PromiseTestSupport
import Testing

@testable import PromiseEngine

/// A promise whose "real work" can be cancelled: records that it was, then
/// settles as cancelled, as a process step does after killing its process.
func cancellableWork(_ name: String, _ log: Recorder<String>) -> (Promise<Int>, Resolver<Int>) {
    let (promise, resolver) = Promise<Int>.pending()
    resolver.onCancel {
        log.record("cancel \(name)")
        resolver.cancel()
    }
    return (promise, resolver)
}

@Suite("Cancellation")
struct CancellationTests {
    @Test("cancelling runs the cancel handlers, which reach the real work")
    func handlersRun() {
        let log = Recorder<String>()
        let (work, _) = cancellableWork("work", log)
        work.cancel()
        #expect(log.events == ["cancel work"])
        #expect(work.state_ == "cancelled")
    }

    @Test("a handler added after the request runs at once; none after settling")
    func lateHandler() {
        let log = Recorder<String>()
        let (p, r) = Promise<Int>.pending()
        p.cancel()
        r.onCancel { log.record("late") }
        let (q, rq) = Promise<Int>.pending()
        rq.fulfill(1)
        rq.onCancel { log.record("after settling") }
        q.cancel()
        #expect(log.events == ["late"])
        #expect(r.isCancelRequested)
        #expect(q.state_ == "fulfilled(1)")
    }

    @Test("cancellation is a request: work that finishes anyway keeps its value")
    func requestNotVerdict() {
        let (p, r) = Promise<Int>.pending()
        p.cancel()
        r.fulfill(5)
        #expect(p.state_ == "fulfilled(5)")
    }

    @Test("cancelling a derived promise reaches its parent, and the chain ends cancelled")
    func propagatesUp() {
        let log = Recorder<String>()
        let (work, _) = cancellableWork("work", log)
        let tail = work.map { $0 + 1 }.then { Promise(value: $0) }.map { $0 * 2 }
        tail.cancel()
        #expect(log.events == ["cancel work"])
        #expect(tail.state_ == "cancelled")
    }

    @Test("a parent is cancelled only once all of its children asked")
    func allChildrenMustAsk() {
        let log = Recorder<String>()
        let (work, _) = cancellableWork("work", log)
        let a = work.map { $0 }
        let b = work.map { $0 }
        a.cancel()
        #expect(log.events.isEmpty, "b still wants the value")
        #expect(work.state_ == "pending")
        b.cancel()
        #expect(log.events == ["cancel work"])
        #expect(a.state_ == "cancelled")
        #expect(b.state_ == "cancelled")
    }

    @Test("a child whose cancel was requested ends cancelled even if its parent succeeds")
    func requestedChildEndsCancelled() {
        let (work, r) = Promise<Int>.pending()
        let a = work.map { $0 }
        let b = work.map { $0 }
        a.cancel()
        r.fulfill(1)
        #expect(a.state_ == "cancelled")
        #expect(b.state_ == "fulfilled(1)")
    }

    @Test("cancellation reaches a promise a then handler returned")
    func reachesAdopted() {
        let log = Recorder<String>()
        let (inner, _) = cancellableWork("inner", log)
        let chain = Promise(value: 1).then { _ in inner }
        chain.cancel()
        #expect(log.events == ["cancel inner"])
        #expect(chain.state_ == "cancelled")
    }

    @Test("cancelled is its own outcome, distinct from rejected, and ensure still runs")
    func distinctOutcome() {
        let log = Recorder<String>()
        let (work, _) = cancellableWork("work", log)
        let ensured = Counter()
        let caught = Counter()
        let tail = work.ensure { ensured.increment() }
        let caughtTail = tail.catch { _ in caught.increment() }
        caughtTail.cancel()
        #expect(ensured.current == 1)
        #expect(caught.current == 0)
        #expect(tail.outcome?.isCancelled == true)
        #expect(tail.outcome?.error == nil)
    }

    @Test("race cancels the losers")
    func raceCancelsLosers() {
        let log = Recorder<String>()
        let (a, ra) = cancellableWork("a", log)
        let (b, _) = cancellableWork("b", log)
        let (c, _) = cancellableWork("c", log)
        let winner = race([a, b, c])
        ra.fulfill(1)
        #expect(winner.state_ == "fulfilled(1)")
        #expect(log.events == ["cancel b", "cancel c"])
    }

    @Test("a loser shared with another consumer is not cancelled by the race")
    func sharedLoserSurvives() {
        let log = Recorder<String>()
        let (a, ra) = cancellableWork("a", log)
        let (b, _) = cancellableWork("b", log)
        let other = b.map { $0 }
        _ = race([a, b])
        ra.fulfill(1)
        #expect(log.events.isEmpty)
        other.cancel()
        #expect(log.events == ["cancel b"])
    }

    @Test("cancelling a combinator cancels its inputs")
    func combinatorsCancelInputs() {
        let log = Recorder<String>()
        let (a, _) = cancellableWork("a", log)
        let (b, _) = cancellableWork("b", log)
        let all = when(fulfilled: [a, b])
        all.cancel()
        #expect(log.events == ["cancel a", "cancel b"])
        #expect(all.state_ == "cancelled")

        let (c, _) = cancellableWork("c", log)
        let (d, _) = cancellableWork("d", log)
        let first = any([c, d])
        first.cancel()
        #expect(first.state_ == "cancelled")

        let (e, _) = cancellableWork("e", log)
        let resolved = when(resolved: [e])
        resolved.cancel()
        #expect(resolved.outcome?.value?.map(\.testDescription) == ["cancelled"])
        #expect(log.events == ["cancel a", "cancel b", "cancel c", "cancel d", "cancel e"])
    }

    @Test("cancelling a timeout asks its input")
    func timeoutPassesRequest() {
        let log = Recorder<String>()
        let clock = ManualClock()
        let (work, _) = cancellableWork("work", log)
        let limited = work.timeout(.seconds(10), clock: clock)
        limited.cancel()
        #expect(log.events == ["cancel work"])
        #expect(limited.state_ == "cancelled")
    }

    @Test("a 1,000,000-link chain cancels without recursion")
    func longChainCancel() {
        let log = Recorder<String>()
        let (work, _) = cancellableWork("root", log)
        var tail = work
        for _ in 0..<1_000_000 { tail = tail.map { $0 } }
        tail.cancel()
        #expect(log.events == ["cancel root"])
        #expect(tail.state_ == "cancelled")
    }
}
