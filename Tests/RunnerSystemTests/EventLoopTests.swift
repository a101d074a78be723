import Glibc
import PromiseEngine
import Synchronization
import Testing

@testable import RunnerSystem

/// The event loop and its timers: work runs on the loop's one thread, in
/// the order handed over; timers fire in deadline order and a cancelled one
/// never fires; a registered descriptor's readiness reaches its handler.
/// Orders and counts are judged, never durations.
@Suite("The event loop")
struct EventLoopTests {
    /// Waits (off the loop) until `done` says so, at most ten seconds.
    private func wait(until done: () -> Bool) async {
        // Suspended, not asleep on a thread: the pool has only 2 (one per core).
        let deadline = ContinuousClock.now + .seconds(10)
        while !done(), ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(1)) }
    }

    @Test("the timer heap gives due work in deadline order and drops what was cancelled")
    func timerHeap() async {
        var heap = TimerHeap()
        let start = ContinuousClock.now
        let order = Lock<[Int]>([])
        for (token, offset) in [(1, 30), (2, 10), (3, 20), (4, 5)] {
            heap.insert(token: UInt64(token), deadline: start + .milliseconds(offset)) { order.withLock { $0.append(token) } }
        }
        heap.cancel(3)
        #expect(heap.nextDeadline == start + .milliseconds(5))
        // Only what is due by +15 ms.
        while let work = heap.popDue(now: start + .milliseconds(15)) { work() }
        #expect(order.withLock { $0 } == [4, 2])
        while let work = heap.popDue(now: start + .seconds(1)) { work() }
        #expect(order.withLock { $0 } == [4, 2, 1])
        #expect(heap.isEmpty)
    }

    @Test("work handed over runs on the loop thread, in order")
    func executeRunsOnTheLoop() async {
        let loop = EventLoop.shared
        #expect(!loop.inLoop)
        let seen = Lock<[(Int, Bool)]>([])
        for index in 0..<100 {
            loop.execute { seen.withLock { $0.append((index, loop.inLoop)) } }
        }
        await wait { seen.withLock { $0.count } == 100 }
        let all = seen.withLock { $0 }
        #expect(all.map(\.0) == Array(0..<100))
        #expect(all.allSatisfy { $0.1 })
    }

    @Test("timers on the loop fire in deadline order; a cancelled one never does")
    func loopTimers() async {
        let loop = EventLoop.shared
        let fired = Lock<[String]>([])
        loop.execute {
            loop.schedule(after: .milliseconds(40)) { fired.withLock { $0.append("late") } }
            let cancelled = loop.schedule(after: .milliseconds(20)) { fired.withLock { $0.append("cancelled") } }
            loop.schedule(after: .milliseconds(1)) { fired.withLock { $0.append("early") } }
            loop.cancelTimer(cancelled)
        }
        await wait { fired.withLock { $0.contains("late") } }
        #expect(fired.withLock { $0 } == ["early", "late"])
    }

    @Test("a registered pipe's readiness reaches its handler on the loop")
    func descriptorReadiness() async throws {
        let loop = EventLoop.shared
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
        defer { close(fds[1]) }
        let token = loop.makeToken()
        let read = Lock<[UInt8]>([])
        let reader = fds[0]
        // 0x001: EPOLLIN.
        loop.register(reader, token: token, events: 0x001) { _ in
            var buffer = [UInt8](repeating: 0, count: 16)
            let count = Glibc.read(reader, &buffer, 16)
            if count > 0 { read.withLock { $0 += buffer.prefix(count) } }
        }
        _ = "ping".withCString { Glibc.write(fds[1], $0, 4) }
        await wait { read.withLock { $0.count } == 4 }
        #expect(read.withLock { $0 } == Array("ping".utf8))
        let unregistered = Lock<Bool>(false)
        loop.execute {
            loop.unregister(reader, token: token)
            close(reader)
            unregistered.withLock { $0 = true }
        }
        await wait { unregistered.withLock { $0 } }
    }

    @Test(
        "a deferrable descriptor waits for a timer due within the defer limit and is handled right after it; with none near, at once",
        arguments: [
            // Half the limit away: the loop wakes then anyway, so the pipe,
            // readable at once, is read at that wake-up, after the timer.
            (Duration.nanoseconds(EventLoop.deferLimit / 2), ["timer", "read"]),
            // A second away: the loop waits for the pipe too.
            (Duration.seconds(1), ["read", "timer"]),
        ])
    func deferrableOrder(timerAfter delay: Duration, expected: [String]) async {
        // A loop of its own: another test's work would wake the shared one.
        let loop = EventLoop()
        let seen = Lock<[String]>([])
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
        let (reader, writer) = (fds[0], fds[1])
        defer { close(writer) }
        // 0x001: EPOLLIN.
        loop.register(reader, token: loop.makeToken(), events: 0x001, deferrable: true) { _ in
            var buffer = [UInt8](repeating: 0, count: 16)
            while Glibc.read(reader, &buffer, 16) > 0 {}
            seen.withLock { $0.append("read") }
        }
        loop.execute {
            loop.schedule(after: delay) { seen.withLock { $0.append("timer") } }
            _ = "ping".withCString { Glibc.write(writer, $0, 4) }
        }
        await wait { seen.withLock { $0.count } == 2 }
        #expect(seen.withLock { $0 } == expected)
        // With no timer left, still handled: the loop waits for it.
        _ = "pong".withCString { Glibc.write(writer, $0, 4) }
        await wait { seen.withLock { $0.count } == 3 }
        #expect(seen.withLock { $0 } == expected + ["read"])
    }

    @Test("the pacer runs timers in deadline order (an earlier one scheduled later wakes it), each once; a cancelled one not at all")
    func pacer() async {
        let fired = Lock<[Int]>([])
        // Scheduled latest first, 30 ms apart: each new one is the earliest.
        for index in (0..<10).reversed() {
            _ = Pacer.shared.schedule(after: .milliseconds(30 * index)) { fired.withLock { $0.append(index) } }
        }
        let cancelled = Pacer.shared.schedule(after: .milliseconds(300)) { fired.withLock { $0.append(-1) } }
        cancelled.cancel()
        let last = Lock<Bool>(false)
        _ = Pacer.shared.schedule(after: .milliseconds(500)) { last.withLock { $0 = true } }
        await wait { last.withLock { $0 } }
        #expect(fired.withLock { $0 } == Array(0..<10))
    }
}
