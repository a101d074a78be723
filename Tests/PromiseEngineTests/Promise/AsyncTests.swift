import Dispatch
import PromiseTestSupport
import Testing

@testable import PromiseEngine

@Suite("async/await")
struct AsyncTests {
    @Test("await gives the value or throws the error")
    func awaitValue() async throws {
        let (p, r) = Promise<Int>.pending()
        DispatchQueue.global().async { r.fulfill(3) }
        #expect(try await p.value == 3)
        await #expect(throws: TestError(1)) { try await Promise<Int>(error: TestError(1)).value }
    }

    @Test("a cancelled promise throws CancellationError")
    func awaitCancelled() async {
        await #expect(throws: CancellationError.self) { try await Promise<Int>.cancelled().value }
        #expect(await Promise<Int>.cancelled().settled.isCancelled)
    }

    @Test("a promise from an async closure")
    func fromAsync() async throws {
        let p = Promise<Int>.async {
            try await Task.sleep(for: .milliseconds(1))
            return 9
        }
        #expect(try await p.value == 9)
        let failed = Promise<Int>.async { throw TestError(2) }
        #expect(await failed.settled.error as? TestError == TestError(2))
    }

    @Test("cancelling the promise cancels its task")
    func promiseCancelsTask() async {
        let started = AsyncSignal()
        let p = Promise<Int>.async {
            await started.signal()
            try await Task.sleep(for: .seconds(600))
            return 1
        }
        await started.wait()
        p.cancel()
        #expect(await p.settled.isCancelled)
    }

    @Test("cancelling the awaiting task cancels the promise (its only consumer)")
    func taskCancelsPromise() async {
        let log = Recorder<String>()
        let (work, _) = cancellableWork("work", log)
        let waiter = Task { try await work.value }
        waiter.cancel()
        let result = await waiter.result
        #expect(log.events == ["cancel work"])
        #expect(throws: CancellationError.self) { try result.get() }
    }

    @Test("a task cancelled before it awaits still counts as one child")
    func cancelledBeforeAwait() async {
        let log = Recorder<String>()
        let (work, _) = cancellableWork("work", log)
        let other = work.map { $0 }
        let waiter = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await work.value
        }
        // Wait until the waiter is registered (the second observer) and has
        // asked (two children, one of them still wanting the value).
        while work.withLock({ _ in (work.extrasUnderLock?.moreObservers.count, work.childCount) }) != (1, 1) {
            await Task.yield()
        }
        #expect(log.events.isEmpty, "`other` still wants the value")
        other.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(log.events == ["cancel work"])
    }
}

/// A one-shot signal between tasks.
actor AsyncSignal {
    private var fired = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func signal() {
        fired = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }

    func wait() async {
        if fired { return }
        await withCheckedContinuation { waiters.append($0) }
    }
}
