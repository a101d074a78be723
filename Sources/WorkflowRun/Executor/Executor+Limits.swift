import PromiseEngine
import RunnerSystem
import Synchronization
import WorkflowModel

extension WorkflowExecutor {
    /// Runs `work` in a scope of its own inside `context.cancel`; with a
    /// timeout, cancels that scope when time runs out, waits for the work
    /// to stop, and fails with kind `timeout`. A child scope is cancelled
    /// with its parent, so no child outlives its parent's deadline.
    func limit(
        timeout: Duration?, id: String, in context: ExecutionContext,
        _ work: @escaping @Sendable (ExecutionContext) -> Promise<Void>
    ) -> Promise<Void> {
        let scope = CancelScope(parent: context.cancel)
        var inner = context
        inner.cancel = scope
        guard let timeout else {
            return work(inner).ensure { scope.finish() }
        }
        let flag = TimeoutFlag()
        let timer = clock.schedule(after: timeout) {
            flag.fire()
            scope.cancel()
        }
        return work(inner).derive(
            .inline,
            .outcome { outcome in
                timer.cancel()
                scope.finish()
                if flag.fired, !outcome.isFulfilled {
                    return .outcome(.rejected(RunError(stepID: id, kind: .timeout, message: "\(id) timed out after \(DurationText.format(timeout))")))
                }
                return .outcome(outcome)
            })
    }

    /// Runs `attempt` again after a failure, as `retry N [delay D] [backoff D]`
    /// says; never after cancellation. An http attempt answered 429 or 503
    /// with `Retry-After` waits that long instead, at most `timeout` and
    /// `RetryAfter.longest`.
    func withRetry<Value: Sendable>(
        _ policy: RetryPolicy?, timeout: Duration? = nil, in context: ExecutionContext,
        _ attempt: @escaping @Sendable (Int) -> Promise<Value>
    ) -> Promise<Value> {
        guard let policy, policy.count > 0 else { return attempt(1) }
        let delay: RetryDelay
        if let backoff = policy.backoff {
            delay = .exponential(initial: backoff)
        } else if let fixed = policy.delay {
            delay = .fixed(fixed)
        } else {
            delay = .none
        }
        let scope = context.cancel
        let result = retry(
            maxAttempts: policy.count + 1, delay: delay, clock: clock,
            shouldRetry: { _ in !scope.isCancelled },
            delayAfter: { error, _ in RetryAfter.wait(after: error, cap: timeout, now: WallClock.now())?.duration },
            attempt)
        let registration = scope.onCancel { result.cancel() }
        return result.ensure { scope.removeHandler(registration) }
    }
}

/// Whether a timer fired, read by the code that sees the work end.
final class TimeoutFlag: Sendable {
    private let value = Atomic<Bool>(false)
    func fire() { value.store(true, ordering: .releasing) }
    var fired: Bool { value.load(ordering: .acquiring) }
}

extension Outcome {
    var isFulfilled: Bool {
        if case .fulfilled = self { return true }
        return false
    }
}
