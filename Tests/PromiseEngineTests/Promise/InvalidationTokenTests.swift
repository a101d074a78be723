import Dispatch
import PromiseTestSupport
import Synchronization
import Testing

@testable import PromiseEngine

// Tomorrowland's documented behaviours of `PromiseInvalidationToken`, each
// as a test of its own.

@Suite("Invalidation tokens")
struct InvalidationTokenTests {
    @Test("a token never invalidated changes nothing")
    func notInvalidated() {
        let token = PromiseInvalidationToken()
        let (p, r) = Promise<Int>.pending()
        let ran = Recorder<Int>()
        let mapped = p.map(token: token) {
            ran.record($0)
            return $0 + 1
        }
        r.fulfill(41)
        #expect(ran.events == [41])
        #expect(mapped.state_ == "fulfilled(42)")
    }

    @Test("invalidated before the promise settles: the handler does not run and its promise is cancelled")
    func invalidatedBefore() {
        let token = PromiseInvalidationToken()
        let (p, r) = Promise<Int>.pending()
        let ran = Recorder<Int>()
        let mapped = p.map(token: token) {
            ran.record($0)
            return $0
        }
        let done = p.done(token: token) { ran.record($0) }
        token.invalidate()
        r.fulfill(1)
        #expect(ran.events.isEmpty)
        #expect(mapped.state_ == "cancelled")
        #expect(done.state_ == "cancelled")
    }

    @Test("an error passes a value handler whose token was invalidated, as it would anyway")
    func invalidatedErrorPasses() {
        let token = PromiseInvalidationToken()
        let (p, r) = Promise<Int>.pending()
        let mapped = p.map(token: token) { $0 }
        token.invalidate()
        r.reject(TestError(3))
        #expect(mapped.state_ == "rejected(TestError(3))")
    }

    @Test("invalidated while the promise settles: a handler after the one that invalidates does not run")
    func invalidatedDuring() {
        let token = PromiseInvalidationToken()
        let (p, r) = Promise<Int>.pending()
        let ran = Recorder<String>()
        let first = p.done { _ in
            ran.record("first")
            token.invalidate()
        }
        let second = p.done(token: token) { _ in ran.record("second") }
        r.fulfill(1)
        #expect(ran.events == ["first"])
        #expect(first.state_ == "fulfilled(())")
        #expect(second.state_ == "cancelled")
    }

    @Test("invalidated after settling, before a queued handler starts: it does not run")
    func invalidatedBeforeQueuedHandler() {
        let token = PromiseInvalidationToken()
        let queue = DispatchQueue(label: "handlers")
        let ran = Recorder<Int>()
        let (p, r) = Promise<Int>.pending()
        queue.suspend()
        let mapped = p.map(on: .queue(queue), token: token) {
            ran.record($0)
            return $0
        }
        r.fulfill(1)  // the handler is queued, not run
        token.invalidate()
        queue.resume()
        queue.sync {}
        #expect(ran.events.isEmpty)
        #expect(mapped.state_ == "cancelled")
    }

    @Test("invalidated after the handler ran: nothing changes")
    func invalidatedAfter() {
        let token = PromiseInvalidationToken()
        let (p, r) = Promise<Int>.pending()
        let mapped = p.map(token: token) { $0 * 2 }
        r.fulfill(2)
        token.invalidate()
        #expect(mapped.state_ == "fulfilled(4)")
        token.requestCancelOnInvalidate(mapped)
        token.invalidate()
        #expect(mapped.state_ == "fulfilled(4)", "a settled promise ignores the request")
    }

    @Test("a token is reusable: handlers registered after an invalidation run")
    func reusable() {
        let token = PromiseInvalidationToken()
        let ran = Recorder<Int>()
        let (a, ra) = Promise<Int>.pending()
        _ = a.done(token: token) { ran.record($0) }
        token.invalidate()
        let (b, rb) = Promise<Int>.pending()
        _ = b.done(token: token) { ran.record($0) }
        ra.fulfill(1)
        rb.fulfill(2)
        #expect(ran.events == [2])
    }

    @Test("one token over several handlers; a handler without it still runs")
    func severalHandlers() {
        let token = PromiseInvalidationToken()
        let ran = Recorder<String>()
        let (p, r) = Promise<Int>.pending()
        let silenced = (0..<3).map { n in p.done(token: token) { _ in ran.record("token \(n)") } }
        _ = p.done { _ in ran.record("no token") }
        token.invalidate()
        r.fulfill(1)
        #expect(ran.events == ["no token"])
        #expect(silenced.allSatisfy { $0.state_ == "cancelled" })
    }

    @Test("handlers that decide an outcome are cancelled; handlers that look on are skipped and the outcome passes")
    func everyMethod() {
        let token = PromiseInvalidationToken()
        let ran = Recorder<String>()
        let (value, fulfil) = Promise<Int>.pending()
        let (failure, reject) = Promise<Int>.pending()
        let decided: [(String, () -> String)] = {
            let then = value.then(token: token) { v -> Promise<Int> in
                ran.record("then")
                return .value(v)
            }
            let map = value.map(token: token) { v -> Int in
                ran.record("map")
                return v
            }
            let compact = value.compactMap(token: token) { v -> Int? in
                ran.record("compactMap")
                return v
            }
            let done = value.done(token: token) { _ in ran.record("done") }
            let caught = failure.catch(token: token) { _ in ran.record("catch") }
            let typed = failure.catch(TestError.self, token: token) { _ in ran.record("catch(Type)") }
            let recoverValue = failure.recover(token: token) { _ -> Int in
                ran.record("recover")
                return 0
            }
            let recoverPromise = failure.recover(token: token) { _ -> Promise<Int> in
                ran.record("recover promise")
                return .value(0)
            }
            return [
                ("then", { then.state_ }), ("map", { map.state_ }), ("compactMap", { compact.state_ }),
                ("done", { done.state_ }), ("catch", { caught.state_ }), ("catch(Type)", { typed.state_ }),
                ("recover", { recoverValue.state_ }), ("recover promise", { recoverPromise.state_ }),
            ]
        }()
        let get = value.get(token: token) { _ in ran.record("get") }
        let tap = value.tap(token: token) { _ in ran.record("tap") }
        let ensure = value.ensure(token: token) { ran.record("ensure") }
        let ensureThen = failure.ensureThen(token: token) {
            ran.record("ensureThen")
            return .value(())
        }
        value.finally(token: token) { ran.record("finally") }
        token.invalidate()
        fulfil.fulfill(5)
        reject.reject(TestError(1))
        for (name, state) in decided { #expect(state() == "cancelled", "\(name)") }
        #expect(get.state_ == "fulfilled(5)")
        #expect(tap.state_ == "fulfilled(5)")
        #expect(ensure.state_ == "fulfilled(5)")
        #expect(ensureThen.state_ == "rejected(TestError(1))")
        #expect(ran.events.isEmpty, "\(ran.events)")
    }

    @Test("catch and recover with an invalidated token let a value pass: their handlers would not have run")
    func errorHandlersOnValues() {
        let token = PromiseInvalidationToken()
        let caught = Promise(value: 1).catch(token: token) { _ in }
        let recovered = Promise(value: 1).recover(token: token) { _ in 0 }
        token.invalidate()
        let late = Promise(value: 2).recover(token: token) { _ in 0 }
        #expect(caught.state_ == "fulfilled(())")
        #expect(recovered.state_ == "fulfilled(1)")
        #expect(late.state_ == "fulfilled(2)")
    }

    @Test("requestCancelOnInvalidate asks the promise to cancel at the next invalidation")
    func requestCancelOnInvalidate() {
        let log = Recorder<String>()
        let (work, _) = cancellableWork("work", log)
        let token = PromiseInvalidationToken()
        let returned = work.requestCancelOnInvalidate(token)
        #expect(returned === work)
        #expect(log.events.isEmpty)
        token.invalidate()
        #expect(log.events == ["cancel work"])
        #expect(work.state_ == "cancelled")
    }

    @Test("a promise registered for cancellation is held weakly")
    func registeredPromiseHeldWeakly() {
        let token = PromiseInvalidationToken()
        weak var released: Promise<Int>?
        do {
            let (p, _) = Promise<Int>.pending()
            released = p
            p.requestCancelOnInvalidate(token)
        }
        #expect(released == nil)
        token.invalidate()
    }

    @Test("releasing a token invalidates it: registered promises cancel, its handlers do not run")
    func invalidateOnDeinit() {
        let log = Recorder<String>()
        let ran = Recorder<Int>()
        let (work, _) = cancellableWork("work", log)
        let (p, r) = Promise<Int>.pending()
        var mapped: Promise<Int>?
        do {
            let token = PromiseInvalidationToken()
            work.requestCancelOnInvalidate(token)
            mapped = p.map(token: token) {
                ran.record($0)
                return $0
            }
        }
        #expect(log.events == ["cancel work"])
        r.fulfill(1)
        #expect(ran.events.isEmpty, "the handler kept the token's state, not the token")
        #expect(mapped?.state_ == "cancelled")
    }

    @Test("a token made with invalidateOnDeinit: false does nothing when released")
    func noInvalidateOnDeinit() {
        let log = Recorder<String>()
        let (work, resolver) = cancellableWork("work", log)
        let (p, r) = Promise<Int>.pending()
        var mapped: Promise<Int>?
        do {
            let token = PromiseInvalidationToken(invalidateOnDeinit: false)
            work.requestCancelOnInvalidate(token)
            mapped = p.map(token: token) { $0 + 1 }
        }
        #expect(log.events.isEmpty)
        r.fulfill(1)
        resolver.fulfill(2)
        #expect(mapped?.state_ == "fulfilled(2)")
        #expect(work.state_ == "fulfilled(2)")
    }

    @Test("cancelWithoutInvalidating cancels the registered promises; handlers still run and see the cancellation")
    func cancelWithoutInvalidating() {
        let log = Recorder<String>()
        let seen = Recorder<String>()
        let (work, _) = cancellableWork("work", log)
        let token = PromiseInvalidationToken(invalidateOnDeinit: false)
        let tapped = work.tap(token: token) { seen.record($0.testDescription) }
        work.requestCancelOnInvalidate(token)
        token.cancelWithoutInvalidating()
        #expect(log.events == ["cancel work"])
        #expect(seen.events == ["cancelled"])
        #expect(tapped.state_ == "cancelled")
    }

    @Test("requestCancelOnDeinit: the owner's release cancels the promise")
    func requestCancelOnDeinit() {
        final class Owner: PromiseTokenOwner {
            let promiseToken = PromiseInvalidationToken()
        }
        let log = Recorder<String>()
        let (work, _) = cancellableWork("work", log)
        do {
            let owner = Owner()
            #expect(work.requestCancelOnDeinit(owner) === work)
            #expect(log.events.isEmpty)
        }
        #expect(log.events == ["cancel work"])
    }
}

@Suite("Invalidation tokens: chains")
struct ChainedTokenTests {
    @Test("invalidating a parent invalidates the tokens chained from it, not the other way round")
    func parentReachesChild() {
        let parent = PromiseInvalidationToken()
        let child = PromiseInvalidationToken()
        child.chainInvalidation(from: parent)
        let ran = Recorder<String>()
        let log = Recorder<String>()
        let (work, _) = cancellableWork("child's work", log)
        work.requestCancelOnInvalidate(child)

        let (a, ra) = Promise<Int>.pending()
        _ = a.done(token: parent) { _ in ran.record("parent's handler") }
        child.invalidate()
        ra.fulfill(1)
        #expect(ran.events == ["parent's handler"], "the child does not reach its parent")
        #expect(log.events == ["cancel child's work"])

        let (b, rb) = Promise<Int>.pending()
        let silenced = b.done(token: child) { _ in ran.record("child's handler") }
        parent.invalidate()
        rb.fulfill(1)
        #expect(ran.events == ["parent's handler"])
        #expect(silenced.state_ == "cancelled")
    }

    @Test("a chain of three, and every invalidation of the parent reaches them again")
    func chainOfThree() {
        let root = PromiseInvalidationToken()
        let middle = PromiseInvalidationToken()
        let leaf = PromiseInvalidationToken()
        middle.chainInvalidation(from: root)
        leaf.chainInvalidation(from: middle)
        for _ in 0..<2 {
            let log = Recorder<String>()
            let (work, _) = cancellableWork("leaf", log)
            work.requestCancelOnInvalidate(leaf)
            root.invalidate()
            #expect(log.events == ["cancel leaf"])
        }
    }

    @Test("cancelWithoutInvalidating reaches chained tokens only when they asked for it")
    func cancelWithoutInvalidatingChains() {
        let parent = PromiseInvalidationToken()
        let included = PromiseInvalidationToken()
        let excluded = PromiseInvalidationToken()
        included.chainInvalidation(from: parent)
        excluded.chainInvalidation(from: parent, includingCancelWithoutInvalidating: false)
        let log = Recorder<String>()
        let (a, _) = cancellableWork("included", log)
        let (b, _) = cancellableWork("excluded", log)
        a.requestCancelOnInvalidate(included)
        b.requestCancelOnInvalidate(excluded)
        let ran = Recorder<Int>()
        let (p, r) = Promise<Int>.pending()
        _ = p.done(token: included) { ran.record($0) }
        parent.cancelWithoutInvalidating()
        r.fulfill(7)
        #expect(log.events == ["cancel included"])
        #expect(ran.events == [7], "not invalidated")
    }

    @Test("chaining a token to itself does nothing; a cycle invalidates each token once")
    func selfAndCycles() {
        let a = PromiseInvalidationToken()
        let b = PromiseInvalidationToken()
        a.chainInvalidation(from: a)
        a.chainInvalidation(from: b)
        b.chainInvalidation(from: a)
        let log = Recorder<String>()
        let (wa, _) = cancellableWork("a", log)
        let (wb, _) = cancellableWork("b", log)
        wa.requestCancelOnInvalidate(a)
        wb.requestCancelOnInvalidate(b)
        a.invalidate()
        #expect(log.events == ["cancel a", "cancel b"])
        #expect(a.core.generation.load(ordering: .relaxed) == 1)
        #expect(b.core.generation.load(ordering: .relaxed) == 1)
    }

    @Test("a parent does not keep a chained token alive")
    func chainDoesNotRetain() {
        let parent = PromiseInvalidationToken()
        weak var released: PromiseInvalidationToken?
        do {
            let child = PromiseInvalidationToken()
            released = child
            child.chainInvalidation(from: parent)
        }
        #expect(released == nil)
        parent.invalidate()
    }
}
