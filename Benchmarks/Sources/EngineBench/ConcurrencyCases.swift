import Dispatch
import Synchronization

// Swift concurrency's nearest equivalents: a Task per value (create + map +
// fulfil is `Task { v }` then `await t.value + 1`), a chain of tasks each
// awaiting the previous, a TaskGroup over N child tasks, and the memory of a
// task suspended on a continuation.
enum ConcurrencyCases {
    static func runBlocking(_ body: @escaping @Sendable () async -> Void) {
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            await body()
            done.signal()
        }
        done.wait()
    }

    static func createMapFulfil(count: Int) -> Double {
        nanosecondsPer(count) {
            runBlocking {
                var sum = 0
                for i in 0..<count {
                    async let value = i
                    sum &+= await value &+ 1
                }
                blackHole(sum)
            }
        }
    }

    static func chain(links: Int) -> Double {
        nanosecondsPer(links) {
            runBlocking {
                var current = Task { 0 }
                for _ in 0..<links {
                    let previous = current
                    current = Task { await previous.value &+ 1 }
                }
                let value = await current.value
                precondition(value == links)
            }
        }
    }

    static func when(count: Int) -> Double {
        nanosecondsPer(count) {
            runBlocking {
                let total = await withTaskGroup(of: Int.self) { group in
                    for i in 0..<count { group.addTask { i } }
                    var total = 0
                    for await value in group { total &+= value }
                    return total
                }
                blackHole(total)
            }
        }
    }

    static func memory(count: Int) -> Double {
        final class Held: Sendable { let continuations = Mutex<[CheckedContinuation<Void, Never>]>([]) }
        let held = Held()
        let figure = bytesPer(count) {
            let started = DispatchSemaphore(value: 0)
            for _ in 0..<count {
                Task.detached {
                    await withCheckedContinuation { continuation in
                        held.continuations.withLock { $0.append(continuation) }
                        started.signal()
                    }
                }
            }
            for _ in 0..<count { started.wait() }
            return count
        }
        for continuation in held.continuations.withLock({ $0 }) { continuation.resume() }
        return figure
    }
}
