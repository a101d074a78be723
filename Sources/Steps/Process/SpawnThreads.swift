import Dispatch
import Glibc
import PromiseEngine
import RunnerSystem

/// The threads that start children, a few at once.
///
/// Starting a child (`csh_spawn`: clone, then exec) holds the starting
/// thread until the child has replaced itself with the program, and under
/// load most of that wait is the child's wait for a core: 300 µs of the
/// 350 µs a step takes in a C loop that starts 1,000 `true` eight at a
/// time on two cores (Benchmarks/HISTORY.md, "The runner at the limit").
/// One thread starting every child makes that wait the runner's pace. Here
/// the starts are handed to a few threads, so that several children wait
/// for their exec at once, and neither the executor's thread nor the
/// event loop ever waits on one.
///
/// Starts are taken in the order they were handed over.
final class SpawnThreads: Sendable {
    /// Two, or one per core up to four.
    static let shared = SpawnThreads(count: 4)

    /// A start, as a struct: the closure is kept as it is called.
    private struct Start {
        let run: @Sendable () -> Void
    }

    private struct Queue {
        var items: [Start] = []
        var head = 0
        var threadsStarted = false
        /// Starts under way, here or on the threads.
        var starting = 0
    }

    private let queue = Lock(Queue())
    private let ready = DispatchSemaphore(value: 0)
    private let count: Int

    private init(count: Int) {
        self.count = count
    }

    /// Runs `start` on one of the threads, after the starts handed over
    /// before it.
    ///
    /// - Parameter alone: no other child of the caller's runs. Then, with
    ///   nothing else starting, it is started here, at once: a chain of
    ///   steps one after another pays no hand-over, and holding the caller
    ///   for one exec holds up no other step's output.
    func submit(alone: Bool, _ start: @escaping @Sendable () -> Void) {
        let inline: Bool =
            alone
            && queue.withLock { queue in
                guard queue.starting == 0, queue.head == queue.items.count else { return false }
                queue.starting += 1
                return true
            }
        if inline {
            start()
            queue.withLock { $0.starting -= 1 }
            return
        }
        let startThreads: Bool = queue.withLock { queue in
            queue.items.append(Start(run: start))
            defer { queue.threadsStarted = true }
            return !queue.threadsStarted
        }
        if startThreads {
            for _ in 0..<count { startDetachedThread(named: "pr-spawn") { [self] in run() } }
        }
        ready.signal()
    }

    private func run() {
        while true {
            ready.wait()
            let start: Start? = queue.withLock { queue in
                guard queue.head < queue.items.count else { return nil }
                let start = queue.items[queue.head]
                queue.head += 1
                if queue.head == queue.items.count {
                    queue.items.removeAll(keepingCapacity: true)
                    queue.head = 0
                } else if queue.head >= 64, queue.head * 2 >= queue.items.count {
                    queue.items.removeFirst(queue.head)
                    queue.head = 0
                }
                queue.starting += 1
                return start
            }
            start?.run()
            if start != nil { queue.withLock { $0.starting -= 1 } }
        }
    }
}
