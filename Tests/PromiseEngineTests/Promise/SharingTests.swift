import Dispatch
import PromiseTestSupport
import Testing

@testable import PromiseEngine

// Tomorrowland's documented behaviours of `makeChild()` and
// `propagatingCancellation(on:cancelRequested:)`.

@Suite("Shared promises")
struct SharingTests {
    @Test("makeChild settles as its parent, and is a promise of its own")
    func makeChild() {
        let (p, r) = Promise<Int>.pending()
        let child = p.makeChild()
        #expect(child !== p)
        #expect(child.state_ == "pending")
        r.fulfill(42)
        #expect(child.state_ == "fulfilled(42)")
    }

    @Test("the shared promise is cancelled once all its children asked: callback, then the request up, then the children")
    func allChildrenAsk() {
        let order = Recorder<String>()
        let (root, rootResolver) = Promise<Int>.pending()
        rootResolver.onCancel {
            order.record("root asked to cancel")
            rootResolver.cancel()
        }
        let shared = root.propagatingCancellation { promise in
            order.record("cancelRequested")
            #expect(promise.state_ == "pending")
        }
        let a = shared.makeChild()
        let b = shared.makeChild()
        a.cancel()
        #expect(order.events.isEmpty, "b still wants the value")
        b.cancel()
        #expect(order.events == ["cancelRequested", "root asked to cancel"])
        #expect(a.state_ == "cancelled" && b.state_ == "cancelled" && shared.state_ == "cancelled")
        #expect(shared.makeChild().state_ == "cancelled", "a child made now is cancelled at once")
    }

    @Test("the callback gets the shared promise itself")
    func callbackGetsShared() {
        let (root, _) = Promise<Int>.pending()
        let seen = Recorder<ObjectIdentifier>()
        let shared = root.propagatingCancellation { seen.record(ObjectIdentifier($0)) }
        shared.cancel()
        #expect(seen.events == [ObjectIdentifier(shared)])
    }

    @Test("with no children and no cancel, nothing propagates; the value comes through")
    func fulfilled() {
        let (root, r) = Promise<Int>.pending()
        let called = Counter()
        let shared = root.propagatingCancellation { _ in called.increment() }
        r.progress(0.5)
        let heard = Recorder<Double>()
        shared.onProgress { heard.record($0) }
        r.progress(0.75)
        r.fulfill(42)
        #expect(shared.state_ == "fulfilled(42)")
        #expect(called.current == 0)
        #expect(heard.events == [0.5, 0.75, 1])
    }

    @Test("an asynchronous callback: the request goes up after it ran on its queue")
    func asynchronousCallback() {
        let cache = MarkedQueue("cache")
        let order = Recorder<String>()
        let (root, rootResolver) = Promise<Int>.pending()
        rootResolver.onCancel {
            order.record("root asked")
            rootResolver.cancel()
        }
        let shared = root.propagatingCancellation(on: cache.context) { _ in
            order.record("callback on queue: \(cache.isCurrent)")
        }
        cache.queue.suspend()
        shared.makeChild().cancel()
        #expect(order.events.isEmpty)
        cache.queue.resume()
        cache.queue.sync {}
        #expect(order.events == ["callback on queue: true", "root asked"])
    }

    @Test("the root's other children keep it running")
    func otherChildrenOfRoot() {
        let log = Recorder<String>()
        let (root, rootResolver) = cancellableWork("root", log)
        let shared = root.propagatingCancellation { _ in log.record("callback") }
        let other = root.makeChild()
        shared.makeChild().cancel()
        #expect(log.events == ["callback"])
        rootResolver.fulfill(42)
        #expect(other.state_ == "fulfilled(42)")
        #expect(shared.state_ == "cancelled", "asked to cancel, so cancelled whatever the root became")
    }

    @Test("relay passes every event to another resolver: progress, then the outcome; it returns the promise")
    func relay() {
        let (source, sourceResolver) = Promise<Int>.pending()
        let (target, targetResolver) = Promise<Int>.pending()
        let heard = Recorder<Double>()
        target.onProgress { heard.record($0) }
        #expect(source.relay(to: targetResolver) === source)
        sourceResolver.progress(0.5)
        sourceResolver.fulfill(3)
        #expect(heard.events == [0.5, 1])
        #expect(target.state_ == "fulfilled(3)")
        let (failed, failedResolver) = Promise<Int>.pending()
        let (cancelled, cancelledResolver) = Promise<Int>.pending()
        Promise<Int>(error: TestError(1)).relay(to: failedResolver)
        Promise<Int>.cancelled().relay(to: cancelledResolver)
        #expect(failed.state_ == "rejected(TestError(1))")
        #expect(cancelled.state_ == "cancelled")
    }

    @Test("cancelling the relay's target is its vote to cancel the source")
    func relayCancel() {
        let log = Recorder<String>()
        let (source, _) = cancellableWork("source", log)
        let (target, targetResolver) = Promise<Int>.pending()
        source.relay(to: targetResolver)
        let other = source.makeChild()
        target.cancel()
        #expect(log.events.isEmpty, "another child still wants the source")
        other.cancel()
        #expect(log.events == ["cancel source"])
        #expect(target.state_ == "cancelled")
    }
}
