import Glibc
import PromiseEngine
import Testing

@testable import RunnerSystem

/// A value bound to the event loop: read and written on the loop's thread
/// it is the value itself; touched off that thread, a debug build stops
/// (in a child process: the stop would end the test process).
@Suite("A loop-bound value")
struct LoopBoundTests {
    /// Waits (off the loop) until `done` says so, at most ten seconds.
    private func wait(until done: () -> Bool) async {
        // Suspended, not asleep on a thread: the pool has only 2 (one per core).
        let deadline = ContinuousClock.now + .seconds(10)
        while !done(), ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(1)) }
    }

    /// What the loop-bound object below holds.
    private final class Counter {
        var count = 0
    }

    @Test("handed to the loop from another thread, it is read and written there, one object in every copy")
    func handedOverThenUsedOnTheLoop() async {
        let loop = EventLoop.shared
        let bound = LoopBound(handingOver: Counter(), to: loop)
        let seen = Lock<[Int]>([])
        for _ in 0..<3 {
            loop.execute {
                bound.value.count += 1
                let count = bound.value.count
                seen.withLock { $0.append(count) }
            }
        }
        await wait { seen.withLock { $0.count } == 3 }
        #expect(seen.withLock { $0 } == [1, 2, 3])
    }

    @Test("made on the loop, a value type is set and changed in place there")
    func madeOnTheLoop() async {
        let loop = EventLoop.shared
        let result = Lock<[Int]?>(nil)
        loop.execute {
            var numbers = LoopBound([1], loop: loop)
            numbers.value.append(2)
            numbers.withValue { $0.append(3) }
            let value = numbers.value
            result.withLock { $0 = value }
        }
        await wait { result.withLock { $0 } != nil }
        #expect(result.withLock { $0 } == [1, 2, 3])
    }

    #if DEBUG
    @Test("read off its loop's thread, it stops the process with a message (debug builds)")
    func readOffTheLoopStops() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let bound = LoopBound(handingOver: 1, to: EventLoop.shared)
            _ = bound.value
        }
        let message = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(message.contains("a LoopBound value read off its event loop's thread"))
    }

    @Test("written off its loop's thread, it stops the process with a message (debug builds)")
    func writtenOffTheLoopStops() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var bound = LoopBound(handingOver: 1, to: EventLoop.shared)
            bound.value = 2
        }
        let message = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(message.contains("a LoopBound value written off its event loop's thread"))
    }

    @Test("made off its loop's thread without a hand-over, it stops the process with a message (debug builds)")
    func madeOffTheLoopStops() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = LoopBound(1, loop: EventLoop.shared)
        }
        let message = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(message.contains("a LoopBound made off its event loop's thread"))
    }
    #endif
}
