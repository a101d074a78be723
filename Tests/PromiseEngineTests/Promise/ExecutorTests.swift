import Dispatch
import Testing
@testable import PromiseEngine
import PromiseTestSupport

@Suite("Executors")
struct ExecutorTests {
    @Test("inline handlers run on the settling thread, at once")
    func inline() {
        let (p, r) = Promise<Int>.pending()
        let ranOnQueue = Counter()
        let key = DispatchSpecificKey<Int>()
        let queue = DispatchQueue(label: "settler")
        queue.setSpecific(key: key, value: 1)
        let chained = p.map { value -> Int in
            if DispatchQueue.getSpecific(key: key) == 1 { ranOnQueue.increment() }
            return value
        }
        queue.sync { r.fulfill(1) }
        #expect(chained.state_ == "fulfilled(1)")
        #expect(ranOnQueue.current == 1)
    }

    @Test("handlers given a queue run on that queue")
    func onQueue() async throws {
        let key = DispatchSpecificKey<Int>()
        let queue = DispatchQueue(label: "handlers")
        queue.setSpecific(key: key, value: 7)
        let seen = try await Promise(value: 1)
            .map(on: .queue(queue)) { _ in DispatchQueue.getSpecific(key: key) }
            .value
        #expect(seen == 7)
    }

    @Test("progress listeners can run on a queue")
    func progressOnQueue() async {
        let (p, r) = Promise<Int>.pending()
        let queue = DispatchQueue(label: "progress")
        let heard = Recorder<Double>()
        p.onProgress(on: .queue(queue)) { heard.record($0) }
        r.progress(0.5)
        queue.sync {}
        #expect(heard.events == [0.5])
    }
}
