import Glibc
import PromiseEngine
import Testing

@testable import RunnerSystem

/// The pacer (the clock a `rate`'s schedule runs on), given the schedules
/// the executor gives it: a constant rate (iteration k due k/R seconds
/// after the start) and a linear ramp (due where the rate's integral
/// reaches k). Each timer fires once, in its schedule's order, and never
/// before its due moment; how late it fires is not judged (a loaded
/// machine may run it late), nor is any duration.
@Suite("The pacer")
struct PacerTests {
    /// Waits (off the pacer) until `done` says so, at most ten seconds.
    private func wait(until done: () -> Bool) async {
        // Suspended, not asleep on a thread: the pool has only 2 (one per core).
        let deadline = ContinuousClock.now + .seconds(10)
        while !done(), ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(1)) }
    }

    /// How long after the first timer is scheduled its schedule starts:
    /// ample time to cancel a timer before it is due, even on a busy machine.
    private static let lead = Duration.milliseconds(100)

    /// Schedules one timer per due moment on the shared pacer, each
    /// `lead + due` after it is scheduled (later timers are scheduled later,
    /// so their deadlines keep the schedule's order), all but those in
    /// `cancelled`, which are scheduled then cancelled; waits for the last
    /// one; returns, in the order they fired, each index and when it fired.
    private func run(_ due: [Duration], cancelling cancelled: Set<Int> = []) async -> [(index: Int, at: ContinuousClock.Instant)] {
        let fired = Lock<[(index: Int, at: ContinuousClock.Instant)]>([])
        for (index, moment) in due.enumerated() {
            let timer = Pacer.shared.schedule(after: Self.lead + moment) {
                let now = ContinuousClock.now
                fired.withLock { $0.append((index, now)) }
            }
            if cancelled.contains(index) { timer.cancel() }
        }
        let expected = due.count - cancelled.count
        let last = Lock<Bool>(false)
        _ = Pacer.shared.schedule(after: Self.lead + (due.max() ?? .zero) + .milliseconds(50)) { last.withLock { $0 = true } }
        await wait { last.withLock { $0 } && fired.withLock { $0.count } >= expected }
        return fired.withLock { $0 }
    }

    @Test("a constant rate: iteration k fires once, after k/R seconds, in order; a cancelled one never")
    func constantRate() async {
        let start = ContinuousClock.now
        // 200/s for 40 iterations: one every 5 ms.
        let due = (0..<40).map { Duration.nanoseconds(Int64((Double($0) / 200 * 1e9).rounded())) }
        let cancelled: Set<Int> = [3, 17, 39]
        let fired = await run(due, cancelling: cancelled)
        #expect(fired.map(\.index) == (0..<40).filter { !cancelled.contains($0) })
        for (index, at) in fired {
            #expect(at >= start + Self.lead + due[index], "iteration \(index) fired before it was due")
        }
    }

    @Test("a ramp from 0/s to 400/s in 0.2 s: iteration k fires once, after √(2kT/R) seconds, in order")
    func linearRamp() async {
        let start = ContinuousClock.now
        // The rate's integral, R/(2T)·t², reaches k at t = √(2kT/R): 40
        // iterations, the gaps shrinking from 32 ms to 2.5 ms.
        let (rate, length) = (400.0, 0.2)
        let due = (0..<40).map { Duration.nanoseconds(Int64(((2 * Double($0) * length / rate).squareRoot() * 1e9).rounded())) }
        #expect(due.last! < .milliseconds(200))
        let fired = await run(due)
        #expect(fired.map(\.index) == Array(0..<40))
        for (index, at) in fired {
            #expect(at >= start + Self.lead + due[index], "iteration \(index) fired before it was due")
        }
    }

    @Test("two schedules at once: each keeps its order, neither fires early")
    func twoSchedulesAtOnce() async {
        let start = ContinuousClock.now
        // Iterations of two groups, interleaved in time: 100/s and 150/s.
        let first = (0..<20).map { Duration.milliseconds(10 * $0) }
        let second = (0..<30).map { Duration.nanoseconds(Int64((Double($0) / 150 * 1e9).rounded())) }
        let fired = await run(first + second)
        let firsts = fired.filter { $0.index < first.count }.map(\.index)
        let seconds = fired.filter { $0.index >= first.count }.map { $0.index - first.count }
        #expect(firsts == Array(0..<20))
        #expect(seconds == Array(0..<30))
        let due = first + second
        for (index, at) in fired {
            #expect(at >= start + Self.lead + due[index], "timer \(index) fired before it was due")
        }
    }

    @Test("a timer runs on the event loop's thread, where a due iteration sends its request without a hand-over")
    func runsOnTheLoop() async {
        let onLoop = Lock<[Bool]>([])
        for index in 0..<5 {
            _ = Pacer.shared.schedule(after: .milliseconds(5 * index)) { onLoop.withLock { $0.append(EventLoop.shared.inLoop) } }
        }
        await wait { onLoop.withLock { $0.count } == 5 }
        #expect(onLoop.withLock { $0 } == Array(repeating: true, count: 5))
        #expect(!EventLoop.shared.inLoop)
    }
}
