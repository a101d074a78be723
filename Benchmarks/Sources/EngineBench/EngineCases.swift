import PromiseEngine

enum EngineCases {
    static func createMapFulfil(count: Int) -> Double {
        var sum = 0
        let time = nanosecondsPer(count) {
            for i in 0..<count {
                let (promise, resolver) = Promise<Int>.pending()
                let mapped = promise.map { $0 &+ 1 }
                resolver.fulfill(i)
                sum &+= mapped.outcome!.value!
            }
        }
        blackHole(sum)
        return time
    }

    static func chain(links: Int) -> Double {
        var tail: Promise<Int>?
        let time = nanosecondsPer(links) {
            let (head, resolver) = Promise<Int>.pending()
            var current = head
            for _ in 0..<links { current = current.map { $0 &+ 1 } }
            resolver.fulfill(0)
            tail = current
        }
        precondition(tail?.outcome?.value == links)
        return time
    }

    /// (b) with a token on every link: `map(token:)`, the token never
    /// invalidated. Its cost over (b) is the "token on a callback".
    static func chainWithToken(links: Int) -> Double {
        let token = PromiseInvalidationToken()
        var tail: Promise<Int>?
        let time = nanosecondsPer(links) {
            let (head, resolver) = Promise<Int>.pending()
            var current = head
            for _ in 0..<links { current = current.map(token: token) { $0 &+ 1 } }
            resolver.fulfill(0)
            tail = current
        }
        precondition(tail?.outcome?.value == links)
        return time
    }

    static func when(count: Int) -> Double {
        var result: Promise<[Int]>?
        let time = nanosecondsPer(count) {
            let pairs = (0..<count).map { _ in Promise<Int>.pending() }
            let all = PromiseEngine.when(fulfilled: pairs.map(\.promise))
            for (index, pair) in pairs.enumerated() { pair.resolver.fulfill(index) }
            result = all
        }
        precondition(result?.outcome?.value?.count == count)
        return time
    }

    static func memory(count: Int) -> Double {
        bytesPerHeld(count) { Promise<Int>.pending().resolver }
    }
}
