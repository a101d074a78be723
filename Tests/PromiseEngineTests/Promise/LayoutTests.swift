import Glibc
import PromiseTestSupport
import Testing

@testable import PromiseEngine

// What a pending promise costs in memory, as malloc sees it: a size, not a
// time, so it is the same on a loaded machine. (Benchmarks/README.md's
// EngineBench (d) measures the resident set beside NIO's futures.)

/// glibc's `malloc_usable_size` (not in the Glibc module's headers).
private let usableSize: @convention(c) (UnsafeMutableRawPointer?) -> Int = {
    let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_usable_size")
    return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutableRawPointer?) -> Int).self)
}()

/// The bytes malloc can give the object at `object` (its chunk less glibc's 8-byte header).
private func usableBytes(_ object: AnyObject) -> Int {
    usableSize(Unmanaged.passUnretained(object).toOpaque())
}

@Suite("Layout")
struct LayoutTests {
    /// The fewest usable bytes of 16 objects `make` gives, all alive at
    /// once: malloc may hand one object a larger free chunk whole (when
    /// the rest would be too small to keep), never all of them; the
    /// fewest is the size class the object asks for.
    private func fewestUsableBytes(_ make: () -> AnyObject) -> Int {
        let objects = (0..<16).map { _ in make() }
        return objects.map(usableBytes).min() ?? .max
    }

    @Test("a pending Promise<Int> or Promise<Void> fits a 64-byte malloc chunk (56 usable bytes)")
    func pendingPromiseSize() {
        #expect(fewestUsableBytes { Promise<Int>.pending().promise } <= 56)
        #expect(fewestUsableBytes { Promise<Void>.pending().promise } <= 56)
    }

    @Test("a settled promise is the same object: an outcome takes no room of its own")
    func settledPromiseSize() {
        #expect(fewestUsableBytes { Promise(value: 1) } <= 56)
        #expect(fewestUsableBytes { Promise<Int>(error: TestError(1)) } <= 56)
    }

    @Test("more children than a 16-bit count holds: the count moves to the extras, and the last one to ask still cancels")
    func manyChildren() {
        let log = Recorder<String>()
        let (work, _) = cancellableWork("work", log)
        let children = (0..<40_000).map { _ in work.map { $0 } }
        #expect(work.withLock { _ in work.childCount } == Int16.min, "spilled past 32,767")
        for child in children.dropLast() { child.cancel() }
        #expect(log.events.isEmpty, "one child still wants the value")
        #expect(work.state_ == "pending")
        children.last!.cancel()
        #expect(log.events == ["cancel work"])
        #expect(children.allSatisfy { $0.state_ == "cancelled" })
    }

    @Test("children counted while pending only: observing a settled promise counts nothing")
    func settledCountsNoChildren() {
        let (work, resolver) = Promise<Int>.pending()
        resolver.fulfill(1)
        for _ in 0..<3 { _ = work.map { $0 } }
        #expect(work.withLock { _ in work.childCount } == 0)
    }
}
