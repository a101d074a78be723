import Testing

@testable import RunnerSystem

/// The timer heap the event loop and the pacer share, on its own: due work
/// comes out in deadline order, only once due, each timer once; what was
/// cancelled never comes out, also after the heap compacts. Deadlines are
/// instants given to the heap, never waited for.
@Suite("The timer heap")
struct TimerHeapTests {
    /// A fixed permutation of 0..<count (a linear congruential walk), so
    /// that a failure repeats.
    private func shuffled(_ count: Int) -> [Int] {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        var values = Array(0..<count)
        for index in stride(from: count - 1, to: 0, by: -1) {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            values.swapAt(index, Int(state >> 33) % (index + 1))
        }
        return values
    }

    /// Pops everything due at `now`, running each work item.
    private func drain(_ heap: inout TimerHeap, at now: ContinuousClock.Instant) {
        while let work = heap.popDue(now: now) { work() }
    }

    @Test("inserted in any order, with ties, timers come out in deadline order, each once")
    func deadlineOrder() {
        var heap = TimerHeap()
        let start = ContinuousClock.now
        var fired: [(token: UInt64, offset: Int)] = []
        // 500 timers over 250 distinct deadlines: every deadline twice.
        for (token, value) in shuffled(500).enumerated() {
            let offset = value / 2
            heap.insert(token: UInt64(token), deadline: start + .milliseconds(offset)) { fired.append((UInt64(token), offset)) }
        }
        #expect(heap.nextDeadline == start)
        drain(&heap, at: start + .seconds(3600))
        #expect(fired.count == 500)
        #expect(Set(fired.map(\.token)).count == 500)
        #expect(fired.map(\.offset) == (0..<500).map { $0 / 2 })
        #expect(heap.isEmpty)
        #expect(heap.nextDeadline == nil)
    }

    @Test("only what is due by the moment asked comes out; the rest waits for a later one")
    func onlyWhatIsDue() {
        var heap = TimerHeap()
        let start = ContinuousClock.now
        var fired: [Int] = []
        for offset in shuffled(100) {
            heap.insert(token: UInt64(offset), deadline: start + .milliseconds(10 * offset)) { fired.append(offset) }
        }
        // Asked every 25 ms of the timers' time: each ask gives the
        // timers due by then and no later one.
        for step in 0...40 {
            let now = start + .milliseconds(25 * step)
            drain(&heap, at: now)
            #expect(fired == Array(0...min(99, (25 * step) / 10)))
            if let next = heap.nextDeadline { #expect(next > now) }
        }
        #expect(heap.isEmpty)
    }

    @Test("cancelled timers never come out, at the top or deep in the heap, also once it compacts")
    func cancelledNeverFire() {
        var heap = TimerHeap()
        let start = ContinuousClock.now
        var fired: [Int] = []
        for offset in shuffled(200) {
            heap.insert(token: UInt64(offset), deadline: start + .milliseconds(offset)) { fired.append(offset) }
        }
        // Every offset not divisible by 4: 150 of 200, the earliest among
        // them, so that the live ones are fewer than half (the heap
        // compacts) and cancelled entries sit at the top too.
        for offset in shuffled(200) where offset % 4 != 0 { heap.cancel(UInt64(offset)) }
        #expect(!heap.isEmpty)
        #expect(heap.nextDeadline == start)
        heap.cancel(0)
        #expect(heap.nextDeadline == start + .milliseconds(4))
        drain(&heap, at: start + .seconds(3600))
        #expect(fired == Array(stride(from: 4, to: 200, by: 4)))
        #expect(heap.isEmpty)
    }

    @Test("cancelling a timer that fired or never was changes nothing")
    func cancellingTheUnknown() {
        var heap = TimerHeap()
        let start = ContinuousClock.now
        var fired: [Int] = []
        for offset in 0..<3 {
            heap.insert(token: UInt64(offset), deadline: start + .milliseconds(offset)) { fired.append(offset) }
        }
        drain(&heap, at: start)
        heap.cancel(0)
        heap.cancel(99)
        #expect(heap.nextDeadline == start + .milliseconds(1))
        drain(&heap, at: start + .seconds(1))
        #expect(fired == [0, 1, 2])
        #expect(heap.isEmpty)
    }

    @Test("when every timer is cancelled the heap is empty and has no next deadline")
    func allCancelled() {
        var heap = TimerHeap()
        let start = ContinuousClock.now
        for token in 0..<100 {
            heap.insert(token: UInt64(token), deadline: start + .milliseconds(token)) { Issue.record("a cancelled timer fired") }
        }
        for token in shuffled(100) { heap.cancel(UInt64(token)) }
        #expect(heap.isEmpty)
        #expect(heap.nextDeadline == nil)
        #expect(heap.popDue(now: start + .seconds(3600)) == nil)
    }
}
