import PromiseTestSupport
import Testing

@testable import PromiseEngine

/// An object whose release a test can observe through a weak reference.
final class Tracked: Sendable {
    let id: Int
    init(_ id: Int) { self.id = id }
}

@Suite("Leaks")
struct LeakTests {
    @Test("a completed chain releases every promise and closure")
    func completedChainReleases() {
        weak var weakHead: Promise<Int>?
        weak var weakMiddle: Promise<Int>?
        weak var weakTail: Promise<Void>?
        weak var weakCaptured: Tracked?
        do {
            let captured = Tracked(1)
            weakCaptured = captured
            let (head, resolver) = Promise<Int>.pending()
            let middle = head.map { $0 + captured.id }.then { Promise(value: $0) }.ensure { _ = captured }
            let tail = middle.recover { _ in 0 }.done { _ in _ = captured }
            weakHead = head
            weakMiddle = middle
            weakTail = tail
            resolver.fulfill(1)
            #expect(tail.state_ == "fulfilled(())")
        }
        #expect(weakHead == nil)
        #expect(weakMiddle == nil)
        #expect(weakTail == nil)
        #expect(weakCaptured == nil)
    }

    @Test("a settled promise that is still held lets go of its handlers")
    func heldPromiseDropsClosures() {
        weak var weakCaptured: Tracked?
        let (head, resolver) = Promise<Int>.pending()
        let tail: Promise<Int>
        do {
            let captured = Tracked(2)
            weakCaptured = captured
            tail = head.map { $0 + captured.id }
        }
        #expect(weakCaptured != nil)
        resolver.fulfill(1)
        #expect(weakCaptured == nil)
        #expect(tail.state_ == "fulfilled(3)")
    }

    @Test("combinators release their inputs once settled")
    func combinatorsRelease() {
        weak var weakInput: Promise<Int>?
        weak var weakAll: Promise<[Int]>?
        do {
            let (input, resolver) = Promise<Int>.pending()
            weakInput = input
            let all = when(fulfilled: [input, Promise(value: 2)])
            weakAll = all
            let winner = race([all, Promise<[Int]>.pending().promise])
            resolver.fulfill(1)
            #expect(winner.state_ == "fulfilled([1, 2])")
        }
        #expect(weakInput == nil)
        #expect(weakAll == nil)
    }

    @Test("a timed out chain releases after its timer fired")
    func timeoutReleases() {
        let clock = ManualClock()
        weak var weakLimited: Promise<Int>?
        do {
            let (work, resolver) = Promise<Int>.pending()
            resolver.onCancel { resolver.cancel() }
            let limited = work.timeout(.seconds(1), clock: clock)
            weakLimited = limited
            clock.advance(by: .seconds(1))
        }
        #expect(weakLimited == nil)
    }
}
