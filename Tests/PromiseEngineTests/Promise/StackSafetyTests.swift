import PromiseTestSupport
import Testing

@testable import PromiseEngine

// One at a time: each holds a thread of the shared pool for seconds.
@Suite("Stack safety", .serialized)
struct StackSafetyTests {
    @Test("a 1,000,000-link chain builds, resolves and releases without overflowing the stack")
    func millionLinks() {
        let (head, resolver) = Promise<Int>.pending()
        var tail = head
        for _ in 0..<1_000_000 { tail = tail.map { $0 &+ 1 } }
        resolver.fulfill(0)
        #expect(tail.state_ == "fulfilled(1000000)")
        tail = head  // releases the chain
    }

    @Test("a 1,000,000-link chain of thens returning settled promises")
    func millionThens() {
        var tail = Promise(value: 0)
        for _ in 0..<1_000_000 { tail = tail.then { Promise(value: $0 &+ 1) } }
        #expect(tail.state_ == "fulfilled(1000000)")
    }

    @Test("a 1,000,000-link chain of thens adopting pending promises")
    func millionAdoptions() {
        let (head, resolver) = Promise<Int>.pending()
        var tail = head
        for _ in 0..<1_000_000 { tail = tail.then { value in Promise<Int> { $0.fulfill(value &+ 1) } } }
        resolver.fulfill(0)
        #expect(tail.state_ == "fulfilled(1000000)")
    }

    @Test("a resolved 1,000,000-link chain releases every promise once the tail is let go")
    func millionReleased() {
        let (head, resolver) = Promise<Int>.pending()
        weak var weakTail: Promise<Int>?
        do {
            var tail = head
            for _ in 0..<1_000_000 { tail = tail.map { $0 &+ 1 } }
            weakTail = tail
            resolver.fulfill(0)
            #expect(tail.state_ == "fulfilled(1000000)")
        }
        #expect(weakTail == nil, "the chain was released")
    }

    @Test("a 1,000,000-link chain that fails at the head skips to the end")
    func millionSkips() {
        let (head, resolver) = Promise<Int>.pending()
        var tail = head
        for _ in 0..<1_000_000 { tail = tail.map { $0 } }
        resolver.reject(TestError(1))
        #expect(tail.state_ == "rejected(TestError(1))")
    }

    @Test("a million iterate steps that settle at once")
    func millionIterations() {
        let result = iterate(from: 0) { value, _ in
            Promise(value: value == 1_000_000 ? .stop(value) : .next(value + 1))
        }
        #expect(result.state_ == "fulfilled(1000000)")
    }

    @Test("the bounded form over 200,000 instant promises")
    func boundedInstant() {
        let all = when(fulfilled: 0..<200_000, limit: 8) { Promise(value: $0) }
        #expect(all.outcome?.value?.count == 200_000)
    }
}
