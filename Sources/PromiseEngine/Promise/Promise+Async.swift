import Synchronization

// async/await in both directions, with cancellation wired both ways:
// cancelling the awaiting Task asks the promise to cancel (as one of its
// children), and cancelling a promise made from an async closure cancels its Task.

extension Promise {
    /// The value, once the promise settles. Throws the error, or
    /// `CancellationError` when the promise was cancelled. Cancelling the
    /// awaiting task requests cancellation of the promise.
    ///
    /// ```swift
    /// let profile = try await fetchProfile(token).value
    /// ```
    public var value: Value {
        get async throws {
            let waiter = AsyncWaiter<Value>()
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    waiter.start(continuation, observing: self)
                }
            } onCancel: {
                waiter.cancel()
            }
        }
    }

    /// The outcome, once the promise settles; never throws.
    public var settled: Outcome<Value> {
        get async {
            do {
                return .fulfilled(try await value)
            } catch is CancellationError {
                return .cancelled
            } catch {
                return .rejected(error)
            }
        }
    }

    /// A promise of what an async closure returns. Cancelling the promise
    /// cancels the task; a task ending in `CancellationError` cancels the promise.
    ///
    /// ```swift
    /// let size = Promise<Int>.async { try await download(url).count }
    /// ```
    public static func async(
        priority: TaskPriority? = nil,
        _ body: @escaping @Sendable () async throws -> Value
    ) -> Promise<Value> {
        let (promise, resolver) = Promise<Value>.pending()
        let task = Task(priority: priority) {
            let outcome: Outcome<Value>
            do {
                outcome = .fulfilled(try await body())
            } catch is CancellationError {
                outcome = .cancelled
            } catch {
                outcome = .rejected(error)
            }
            resolver.resolve(outcome)
        }
        resolver.onCancel { task.cancel() }
        return promise
    }
}

/// Bridges one `await` to a promise: registers as a child of the promise,
/// resumes the continuation when it settles, and asks for cancellation when
/// the awaiting task is cancelled, whenever that happens, counting as exactly
/// one child.
final class AsyncWaiter<Value: Sendable>: Sendable {
    private enum Phase {
        case idle
        case cancelledBeforeStart
        /// Registering with the promise; `cancelled` if the task was cancelled meanwhile.
        case registering(CheckedContinuation<Value, any Error>, cancelled: Bool)
        case waiting(Promise<Value>, CheckedContinuation<Value, any Error>)
        case done
    }

    private let phase = Lock<Phase>(.idle)

    func start(_ continuation: CheckedContinuation<Value, any Error>, observing promise: Promise<Value>) {
        phase.withLock { phase in
            let cancelled: Bool
            if case .cancelledBeforeStart = phase { cancelled = true } else { cancelled = false }
            phase = .registering(continuation, cancelled: cancelled)
        }
        promise.observeNow(asChild: true) { [self] outcome in self.receive(outcome) }
        let askToCancel: Bool = phase.withLock { phase in
            guard case .registering(let continuation, let cancelled) = phase else { return false }
            phase = .waiting(promise, continuation)
            return cancelled
        }
        if askToCancel { promise.cancelAsChild() }
    }

    func receive(_ outcome: Outcome<Value>) {
        let continuation: CheckedContinuation<Value, any Error>? = phase.withLock { phase in
            switch phase {
            case .registering(let continuation, _), .waiting(_, let continuation):
                phase = .done
                return continuation
            case .idle, .cancelledBeforeStart, .done:
                return nil
            }
        }
        guard let continuation else { return }
        switch outcome {
        case .fulfilled(let value): continuation.resume(returning: value)
        case .rejected(let error): continuation.resume(throwing: error)
        case .cancelled: continuation.resume(throwing: CancellationError())
        }
    }

    func cancel() {
        let promise: Promise<Value>? = phase.withLock { phase in
            switch phase {
            case .idle:
                phase = .cancelledBeforeStart
                return nil
            case .registering(let continuation, _):
                phase = .registering(continuation, cancelled: true)
                return nil
            case .waiting(let promise, _):
                return promise
            case .cancelledBeforeStart, .done:
                return nil
            }
        }
        promise?.cancelAsChild()
    }
}
