import NIOCore
import NIOEmbedded

enum NIOCases {
    static func createMapFulfil(count: Int) -> Double {
        let loop = EmbeddedEventLoop()
        nonisolated(unsafe) var sum = 0
        let time = nanosecondsPer(count) {
            for i in 0..<count {
                let promise = loop.makePromise(of: Int.self)
                let mapped = promise.futureResult.map { $0 &+ 1 }
                promise.succeed(i)
                mapped.whenSuccess { sum &+= $0 }
            }
        }
        blackHole(sum)
        return time
    }

    static func chain(links: Int) -> Double {
        let loop = EmbeddedEventLoop()
        nonisolated(unsafe) var value = 0
        let time = nanosecondsPer(links) {
            let head = loop.makePromise(of: Int.self)
            var current = head.futureResult
            for _ in 0..<links { current = current.map { $0 &+ 1 } }
            head.succeed(0)
            current.whenSuccess { value = $0 }
        }
        precondition(value == links)
        return time
    }

    static func when(count: Int) -> Double {
        let loop = EmbeddedEventLoop()
        nonisolated(unsafe) var total = 0
        let time = nanosecondsPer(count) {
            let promises = (0..<count).map { _ in loop.makePromise(of: Int.self) }
            let all = EventLoopFuture.whenAllSucceed(promises.map(\.futureResult), on: loop)
            for (index, promise) in promises.enumerated() { promise.succeed(index) }
            all.whenSuccess { total = $0.count }
        }
        precondition(total == count)
        return time
    }

    static func memory(count: Int) -> Double {
        let loop = EmbeddedEventLoop()
        let figure = bytesPerHeld(count) { loop.makePromise(of: Int.self) }
        return figure
    }
}
