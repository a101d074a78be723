import Synchronization

/// How long to wait between attempts.
///
/// ```swift
/// retry(maxAttempts: 5, delay: .exponential(initial: .milliseconds(100), maximum: .seconds(2))) { _ in
///     fetch(url)
/// }
/// ```
public enum RetryDelay: Sendable, Equatable {
    /// Try again at once.
    case none
    /// Wait the same time before each new attempt.
    case fixed(Duration)
    /// Wait `initial`, then twice that, four times, ... (at most `maximum`).
    case exponential(initial: Duration, maximum: Duration? = nil)

    /// The wait before attempt `attempt + 1`, after `attempt` failed (1-based).
    public func wait(afterAttempt attempt: Int) -> Duration {
        switch self {
        case .none: return .zero
        case .fixed(let delay): return delay
        case .exponential(let initial, let maximum):
            let doublings = min(max(attempt - 1, 0), 62)
            let nanoseconds = initial.nanosecondsClamped
            let (scaled, overflow) = nanoseconds.multipliedReportingOverflow(by: Int64(1) << doublings)
            let wait: Duration = overflow ? .nanoseconds(Int64.max) : .nanoseconds(scaled)
            if let maximum { return min(wait, maximum) }
            return wait
        }
    }
}

/// Runs `body` until its promise is fulfilled, at most `maxAttempts` times,
/// waiting `delay` between attempts. `body` gets the attempt number (from 1).
/// Only errors for which `shouldRetry` says yes are retried; cancellation
/// never is. `delayAfter`, when it returns a duration for a failure (an
/// HTTP server's `Retry-After`), waits that long instead of `delay`. The
/// result fails with the last attempt's error. Cancelling the result
/// cancels the attempt in flight, or the wait.
///
/// ```swift
/// retry(maxAttempts: 3, delay: .fixed(.seconds(1)), shouldRetry: { $0 is URLError }) { attempt in
///     print("attempt", attempt)
///     return fetch(url)
/// }
/// ```
public func retry<Value: Sendable>(
    maxAttempts: Int,
    delay: RetryDelay = .none,
    clock: any PromiseClock = SystemClock.shared,
    shouldRetry: @escaping @Sendable (any Error) -> Bool = { _ in true },
    delayAfter: (@Sendable (_ error: any Error, _ attempt: Int) -> Duration?)? = nil,
    _ body: @escaping @Sendable (_ attempt: Int) throws -> Promise<Value>
) -> Promise<Value> {
    let run = RetryRun(
        maxAttempts: max(1, maxAttempts), delay: delay, clock: clock, shouldRetry: shouldRetry,
        delayAfter: delayAfter, body: body)
    run.result.addCancelHandler { run.cancel() }
    run.start()
    return run.result
}

/// One retry loop: its state and what it does on each outcome.
private final class RetryRun<Value: Sendable>: Sendable {
    private enum Phase {
        case idle
        case attempting(Promise<Value>)
        case waiting(any ScheduledTimer)
        case finished
    }

    private struct State {
        var attempt = 0
        var phase = Phase.idle
        var cancelled = false
    }

    let result = Promise<Value>(upstream: nil)
    private let state = Lock(State())
    private let maxAttempts: Int
    private let delay: RetryDelay
    private let clock: any PromiseClock
    private let shouldRetry: @Sendable (any Error) -> Bool
    private let delayAfter: (@Sendable (any Error, Int) -> Duration?)?
    private let body: @Sendable (Int) throws -> Promise<Value>

    init(
        maxAttempts: Int, delay: RetryDelay, clock: any PromiseClock,
        shouldRetry: @escaping @Sendable (any Error) -> Bool,
        delayAfter: (@Sendable (any Error, Int) -> Duration?)?,
        body: @escaping @Sendable (Int) throws -> Promise<Value>
    ) {
        self.maxAttempts = maxAttempts
        self.delay = delay
        self.clock = clock
        self.shouldRetry = shouldRetry
        self.delayAfter = delayAfter
        self.body = body
    }

    /// Starts attempts in a loop for as long as they fail synchronously and
    /// may be retried at once, so that many instant failures use no stack.
    func start() {
        while true {
            let attempt: Int? = state.withLock { state in
                guard !state.cancelled else { return nil }
                state.attempt += 1
                return state.attempt
            }
            guard let attempt else {
                finish(.cancelled)
                return
            }
            let promise: Promise<Value>
            do { promise = try body(attempt) } catch { promise = Promise(error: error) }
            let ready: Outcome<Value>? = promise.withLock { state in
                if !state.isPending { promise.markObserved(&state) }
                return promise.outcomeIfSettled(state)
            }
            if let ready {
                if handle(ready, attempt: attempt) { continue }
                return
            }
            let cancelNow: Bool = state.withLock { state in
                state.phase = .attempting(promise)
                return state.cancelled
            }
            promise.observeNow(asChild: true) { [self] outcome in
                if self.handle(outcome, attempt: attempt) { self.start() }
            }
            if cancelNow { promise.cancelAsChild() }
            return
        }
    }

    /// Decides what an attempt's outcome means. Returns true when the next
    /// attempt should start at once.
    private func handle(_ outcome: Outcome<Value>, attempt: Int) -> Bool {
        guard case .rejected(let error) = outcome, attempt < maxAttempts, shouldRetry(error) else {
            finish(outcome)
            return false
        }
        let wait = delayAfter?(error, attempt) ?? delay.wait(afterAttempt: attempt)
        if wait <= .zero { return true }
        let timer = clock.schedule(after: wait) { [self] in self.start() }
        let cancelled: Bool = state.withLock { state in
            state.phase = .waiting(timer)
            return state.cancelled
        }
        if cancelled {
            timer.cancel()
            finish(.cancelled)
        }
        return false
    }

    private func finish(_ outcome: Outcome<Value>) {
        state.withLock { $0.phase = .finished }
        result.settleNow(outcome)
    }

    func cancel() {
        let phase: Phase = state.withLock { state in
            state.cancelled = true
            return state.phase
        }
        switch phase {
        case .attempting(let promise): promise.cancelAsChild()
        case .waiting(let timer):
            timer.cancel()
            finish(.cancelled)
        case .idle, .finished: break
        }
    }
}
