import PromiseTestSupport
import Testing

@testable import PromiseEngine

@Suite("Propagation.defer: work after the outcome has been delivered")
struct PropagationTests {
    @Test("work deferred in a handler runs after every later inline handler of the same delivery")
    func deferredRunsAfterTheChain() {
        let log = Recorder<String>()
        let (promise, resolver) = Promise<Int>.pending()
        let first = promise.map { value -> Int in
            Propagation.defer { log.record("deferred") }
            log.record("first")
            return value + 1
        }
        let second = first.map { value -> Int in
            log.record("second")
            return value + 1
        }
        second.done { _ in log.record("done") }
        resolver.fulfill(1)
        #expect(log.events == ["first", "second", "done", "deferred"])
        #expect(!Propagation.isDelivering)
    }

    @Test("outside a delivery, deferred work runs at once")
    func runsAtOnceOutsideADelivery() {
        let log = Recorder<String>()
        Propagation.defer { log.record("now") }
        #expect(log.events == ["now"])
    }

    @Test("what deferred work settles is delivered, and may defer again")
    func deferredWorkSettlesPromises() {
        let log = Recorder<String>()
        let (inner, innerResolver) = Promise<Void>.pending()
        inner.done {
            Propagation.defer { log.record("inner deferred") }
            log.record("inner done")
        }
        let (outer, outerResolver) = Promise<Void>.pending()
        outer.done {
            Propagation.defer {
                log.record("outer deferred")
                innerResolver.fulfill()
            }
            log.record("outer done")
        }
        outerResolver.fulfill()
        #expect(log.events == ["outer done", "outer deferred", "inner done", "inner deferred"])
    }
}
