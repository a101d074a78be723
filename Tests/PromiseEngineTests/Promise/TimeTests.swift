import PromiseTestSupport
import Testing

@testable import PromiseEngine

@Suite("Time, on a manual clock")
struct TimeTests {
    @Test("after fulfils when its time comes, not before")
    func afterFires() {
        let clock = ManualClock()
        let p = after(.seconds(2), clock: clock)
        clock.advance(by: .milliseconds(1999))
        #expect(p.state_ == "pending")
        clock.advance(by: .milliseconds(1))
        #expect(p.state_ == "fulfilled(())")
    }

    @Test("cancelling after stops its timer and cancels it at once")
    func afterCancel() {
        let clock = ManualClock()
        let p = after(.seconds(2), clock: clock)
        p.cancel()
        #expect(p.state_ == "cancelled")
        #expect(clock.pendingCount == 0)
    }

    @Test("delay passes the value on later; errors pass at once")
    func delayValue() {
        let clock = ManualClock()
        let delayed = Promise(value: 4).delay(.seconds(1), clock: clock)
        let failed = Promise<Int>(error: TestError(1)).delay(.seconds(1), clock: clock)
        #expect(delayed.state_ == "pending")
        #expect(failed.state_ == "rejected(TestError(1))")
        clock.advance(by: .seconds(1))
        #expect(delayed.state_ == "fulfilled(4)")
    }

    @Test("timeout passes an outcome that comes in time")
    func timeoutInTime() {
        let clock = ManualClock()
        let (p, r) = Promise<Int>.pending()
        let limited = p.timeout(.seconds(5), clock: clock)
        clock.advance(by: .seconds(4))
        r.fulfill(1)
        #expect(limited.state_ == "fulfilled(1)")
        #expect(clock.pendingCount == 0, "the timer is called off")
    }

    @Test("timeout rejects when time runs out and asks the work to cancel")
    func timeoutExpires() {
        let clock = ManualClock()
        let stopped = Counter()
        let work = Promise<Int> { r in
            r.onCancel {
                stopped.increment()
                r.cancel()
            }
        }
        let limited = work.timeout(.seconds(5), clock: clock)
        clock.advance(by: .seconds(5))
        #expect(limited.outcome?.error as? PromiseError == .timedOut(afterNanoseconds: 5_000_000_000))
        #expect(stopped.current == 1)
        #expect(work.state_ == "cancelled")
    }

    @Test("a timed-out error says how long")
    func timeoutMessage() {
        #expect("\(PromiseError.timedOut(afterNanoseconds: 1_500_000_000))" == "timed out after 1.5s")
        #expect("\(PromiseError.timedOut(afterNanoseconds: 250_000_000))" == "timed out after 250ms")
        #expect("\(PromiseError.timedOut(afterNanoseconds: 90_000_000_000))" == "timed out after 1m30s")
    }

    @Test("retry tries again after failures and succeeds")
    func retrySucceeds() {
        let attempts = Recorder<Int>()
        let result = retry(maxAttempts: 5) { attempt -> Promise<String> in
            attempts.record(attempt)
            return attempt < 3 ? Promise(error: TestError(attempt)) : Promise(value: "ok")
        }
        #expect(result.state_ == "fulfilled(ok)")
        #expect(attempts.events == [1, 2, 3])
    }

    @Test("retry gives up with the last error")
    func retryGivesUp() {
        let result = retry(maxAttempts: 3) { attempt -> Promise<Int> in Promise(error: TestError(attempt)) }
        #expect(result.state_ == "rejected(TestError(3))")
    }

    @Test("retry waits a fixed delay between attempts")
    func retryFixedDelay() {
        let clock = ManualClock()
        let attempts = Recorder<Int>()
        let result = retry(maxAttempts: 3, delay: .fixed(.seconds(2)), clock: clock) { attempt -> Promise<Int> in
            attempts.record(attempt)
            return Promise(error: TestError(attempt))
        }
        #expect(attempts.events == [1])
        clock.advance(by: .milliseconds(1999))
        #expect(attempts.events == [1])
        clock.advance(by: .milliseconds(1))
        #expect(attempts.events == [1, 2])
        clock.advance(by: .seconds(2))
        #expect(attempts.events == [1, 2, 3])
        #expect(result.state_ == "rejected(TestError(3))")
    }

    @Test("retry backs off exponentially: D, 2D, 4D")
    func retryBackoff() {
        let clock = ManualClock()
        let times = Recorder<Duration>()
        _ = retry(maxAttempts: 4, delay: .exponential(initial: .seconds(1)), clock: clock) { _ -> Promise<Int> in
            times.record(clock.now())
            return Promise(error: TestError())
        }
        clock.advance(by: .seconds(60))
        #expect(times.events == [.zero, .seconds(1), .seconds(3), .seconds(7)])
    }

    @Test("exponential backoff respects its maximum")
    func backoffMaximum() {
        let delay = RetryDelay.exponential(initial: .seconds(1), maximum: .seconds(5))
        #expect((1...5).map { delay.wait(afterAttempt: $0) } == [.seconds(1), .seconds(2), .seconds(4), .seconds(5), .seconds(5)])
    }

    @Test("retry asks a predicate which errors to retry")
    func retryPredicate() {
        let attempts = Counter()
        // swift-format-ignore: OnlyOneTrailingClosureArgument
        let result = retry(maxAttempts: 5, shouldRetry: { ($0 as? TestError)?.id == 1 }) { _ -> Promise<Int> in
            attempts.increment()
            return Promise(error: TestError(attempts.current == 1 ? 1 : 2))
        }
        #expect(attempts.current == 2)
        #expect(result.state_ == "rejected(TestError(2))")
    }

    @Test("retry does not retry a cancelled attempt")
    func retryNotAfterCancel() {
        let attempts = Counter()
        let result = retry(maxAttempts: 5) { _ -> Promise<Int> in
            attempts.increment()
            return .cancelled()
        }
        #expect(attempts.current == 1)
        #expect(result.state_ == "cancelled")
    }

    @Test("cancelling retry during its wait cancels at once and stops attempting")
    func retryCancelDuringWait() {
        let clock = ManualClock()
        let attempts = Counter()
        let result = retry(maxAttempts: 5, delay: .fixed(.seconds(1)), clock: clock) { _ -> Promise<Int> in
            attempts.increment()
            return Promise(error: TestError())
        }
        result.cancel()
        #expect(result.state_ == "cancelled")
        clock.advance(by: .seconds(10))
        #expect(attempts.current == 1)
    }

    @Test("cancelling retry cancels the attempt in flight")
    func retryCancelAttempt() {
        let stopped = Counter()
        let result = retry(maxAttempts: 5) { _ in
            Promise<Int> { r in
                r.onCancel {
                    stopped.increment()
                    r.cancel()
                }
            }
        }
        result.cancel()
        #expect(stopped.current == 1)
        #expect(result.state_ == "cancelled")
    }

    @Test("a million instant failures retry without growing the stack")
    func retryManyInstantFailures() {
        let result = retry(maxAttempts: 1_000_000) { attempt -> Promise<Int> in
            attempt < 1_000_000 ? Promise(error: TestError()) : Promise(value: attempt)
        }
        #expect(result.state_ == "fulfilled(1000000)")
    }

    @Test("the system clock fires for real")
    func systemClock() async throws {
        let start = SystemClock.shared.now()
        try await after(.milliseconds(20)).value
        #expect(SystemClock.shared.now() - start >= .milliseconds(20))
    }
}
