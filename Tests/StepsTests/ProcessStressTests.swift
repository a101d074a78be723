import Dispatch
import PromiseEngine
import Testing
import WorkflowModel

@testable import Steps

/// Run under ThreadSanitizer by `make test-tsan` (the name has "Stress"):
/// children are spawned and handed to the event loop from many threads at
/// once, while the loop thread reads, reaps and settles earlier ones.
@Suite("Process stress")
struct ProcessStressTests {
    @Test func processStepsStartedFromManyThreadsAtOnceEachGetTheirOwnOutput() async {
        let runner = SystemStepRunner()
        let folder = TemporaryFolder()
        let context = folder.context()
        let count = 240
        let promises = Lock<[Int: Promise<StepResult>]>([:])
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in stride(from: thread, to: count, by: 8) {
                // Through the shell, and direct (a PATH lookup from the cache).
                let step = index % 2 == 0 ? sh("echo \(index); echo e\(index) >&2") : exec("printf", "%s", "\(index)")
                let promise = runner.run(step, in: context)
                promises.withLock { $0[index] = promise }
            }
        }
        let started = promises.withLock { $0 }
        #expect(started.count == count)
        for (index, promise) in started.sorted(by: { $0.key < $1.key }) {
            let result = value(await outcome(of: promise))
            #expect(result?.exitCode == 0)
            #expect(result?.stdout?.text == (index % 2 == 0 ? "\(index)\n" : "\(index)"))
            if index % 2 == 0 { #expect(result?.stderr?.text == "e\(index)\n") }
        }
        #expect(runner.liveProcessGroups.running == 0)
    }
}
