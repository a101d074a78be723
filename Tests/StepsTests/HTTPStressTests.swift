import Dispatch
import PromiseEngine
import Testing
import WorkflowModel

@testable import Steps

/// Run under ThreadSanitizer by `make test-tsan` (the name has "Stress"):
/// requests are handed to the event loop from many threads at once, some
/// cancelled at once, while the loop settles earlier ones and the next
/// requests start on the loop thread itself.
@Suite("HTTP stress")
struct HTTPStressTests {
    @Test func requestsStartedAndCancelledFromManyThreadsAllSettle() async throws {
        let runner = SystemStepRunner()
        let folder = TemporaryFolder()
        let context = folder.context()
        let base = try await HTTPTestServer.baseURL()
        let count = 400
        let promises = Lock<[Int: Promise<StepResult>]>([:])
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in stride(from: thread, to: count, by: 8) {
                let path = index % 4 == 0 ? "/slow?ms=200" : "/echo?i=\(index)"
                // Each settled request starts one more from where it settled.
                let promise = runner.run(http(.GET, base + path), in: context).then { _ in
                    runner.run(http(.GET, base + "/hello"), in: context)
                }
                if index % 4 == 0 { promise.cancel() }
                promises.withLock { $0[index] = promise }
            }
        }
        let started = promises.withLock { $0 }
        #expect(started.count == count)
        for (index, promise) in started.sorted(by: { $0.key < $1.key }) {
            let settled = await outcome(of: promise)
            if index % 4 == 0 {
                #expect(settled.isCancelled, "\(index): \(settled)")
            } else {
                #expect(settled.value?.body?.text == "hello", "\(index): \(String(describing: settled).prefix(400))")
            }
        }
    }
}
