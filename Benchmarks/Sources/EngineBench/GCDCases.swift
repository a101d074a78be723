import Dispatch

// GCD has no promises; the nearest equivalents: a DispatchGroup entered
// (create), a notify block (map), leave (fulfil); a chain of work items each
// notifying the next; a group entered N times with one notify.
enum GCDCases {
    static func createMapFulfil(count: Int) -> Double {
        let queue = DispatchQueue(label: "bench")
        nonisolated(unsafe) var sum = 0
        let time = nanosecondsPer(count) {
            for i in 0..<count {
                let group = DispatchGroup()
                group.enter()
                group.notify(queue: queue) { sum &+= i &+ 1 }
                group.leave()
            }
            queue.sync {}
        }
        blackHole(sum)
        return time
    }

    static func chain(links: Int) -> Double {
        let queue = DispatchQueue(label: "bench")
        nonisolated(unsafe) var value = 0
        let time = nanosecondsPer(links) {
            let items = (0..<links).map { _ in DispatchWorkItem { value &+= 1 } }
            for index in 0..<(links - 1) { items[index].notify(queue: queue, execute: items[index + 1]) }
            let done = DispatchSemaphore(value: 0)
            items[links - 1].notify(queue: queue) { done.signal() }
            queue.async(execute: items[0])
            done.wait()
        }
        precondition(value == links)
        return time
    }

    static func when(count: Int) -> Double {
        let queue = DispatchQueue(label: "bench")
        let time = nanosecondsPer(count) {
            let group = DispatchGroup()
            for _ in 0..<count { group.enter() }
            let done = DispatchSemaphore(value: 0)
            group.notify(queue: queue) { done.signal() }
            for _ in 0..<count { group.leave() }
            done.wait()
        }
        return time
    }

    static func memory(count: Int) -> Double {
        bytesPer(count) {
            var groups: [DispatchGroup] = []
            groups.reserveCapacity(count)
            for _ in 0..<count {
                let group = DispatchGroup()
                group.enter()
                groups.append(group)
            }
            return groups
        }
    }
}
