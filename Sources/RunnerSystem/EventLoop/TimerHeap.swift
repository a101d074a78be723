/// The event loop's timers: a binary min-heap on the deadline, cancelled
/// entries dropped when they reach the top. Scheduling and cancelling cost
/// O(log n), finding the next deadline O(1): thousands of timers (grace
/// periods of a thousand cancelled processes) stay cheap.
package struct TimerHeap {
    private struct Entry {
        var token: UInt64
        var deadline: ContinuousClock.Instant
        var work: () -> Void
    }

    private var entries: [Entry] = []
    /// Tokens of live entries.
    private var live: Set<UInt64> = []

    package var isEmpty: Bool { live.isEmpty }

    package mutating func insert(token: UInt64, deadline: ContinuousClock.Instant, work: @escaping () -> Void) {
        live.insert(token)
        entries.append(Entry(token: token, deadline: deadline, work: work))
        siftUp(entries.count - 1)
    }

    package mutating func cancel(_ token: UInt64) {
        guard live.remove(token) != nil else { return }
        dropCancelledTop()
        // Cancelled entries deeper in the heap wait for their turn at the
        // top; compact when they outnumber the live ones.
        if entries.count > 64, entries.count > 2 * live.count {
            entries.removeAll { !live.contains($0.token) }
            for index in stride(from: entries.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
        }
    }

    package var nextDeadline: ContinuousClock.Instant? { entries.first?.deadline }

    /// The work of the earliest timer due at `now`, removed; nil when none is.
    package mutating func popDue(now: ContinuousClock.Instant) -> (() -> Void)? {
        guard let first = entries.first, first.deadline <= now else { return nil }
        removeTop()
        live.remove(first.token)
        dropCancelledTop()
        return first.work
    }

    private mutating func dropCancelledTop() {
        while let first = entries.first, !live.contains(first.token) { removeTop() }
    }

    private mutating func removeTop() {
        let last = entries.removeLast()
        guard !entries.isEmpty else { return }
        entries[0] = last
        siftDown(0)
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].deadline < entries[parent].deadline else { return }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < entries.count else { return }
            var smallest = left
            if left + 1 < entries.count, entries[left + 1].deadline < entries[left].deadline { smallest = left + 1 }
            guard entries[smallest].deadline < entries[parent].deadline else { return }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
