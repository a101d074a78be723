import Synchronization

/// What one step of `iterate` decided.
///
/// ```swift
/// iterate(from: 0) { total, _ in
///     fetchCount().map { count in total + count > 100 ? .stop(total) : .next(total + count) }
/// }
/// ```
public enum Iteration<Value: Sendable>: Sendable {
    /// Go on: call the step again with this value.
    case next(Value)
    /// Stop: the result of `iterate` is this value.
    case stop(Value)
}

/// Calls `step` again and again, each time with the previous value and the
/// step number (from 0), until it returns `.stop`. The first call gets
/// `initial`. A failed step fails the result. Cancelling the result cancels
/// the step in flight. Steps that settle at once run in a loop, not by
/// recursion, so any number of them is safe.
///
/// ```swift
/// // Follows a paged API until a page has no next page; gives the last URL.
/// iterate(from: firstPageURL) { url, _ in
///     fetchPage(url).map { page in page.next.map { .next($0) } ?? .stop(url) }
/// }
/// ```
public func iterate<Value: Sendable>(
    from initial: Value,
    _ step: @escaping @Sendable (_ previous: Value, _ number: Int) throws -> Promise<Iteration<Value>>
) -> Promise<Value> {
    let run = IterationRun(step: step)
    run.result.addCancelHandler { run.cancel() }
    run.advance(from: initial, number: 0)
    return run.result
}

private final class IterationRun<Value: Sendable>: Sendable {
    let result = Promise<Value>(upstream: nil)
    private let step: @Sendable (Value, Int) throws -> Promise<Iteration<Value>>
    private let current = Lock<(promise: Promise<Iteration<Value>>?, cancelled: Bool)>((nil, false))

    init(step: @escaping @Sendable (Value, Int) throws -> Promise<Iteration<Value>>) {
        self.step = step
    }

    func advance(from initial: Value, number first: Int) {
        var value = initial
        var number = first
        while true {
            if current.withLock({ $0.cancelled }) {
                result.settleNow(.cancelled)
                return
            }
            let promise: Promise<Iteration<Value>>
            do { promise = try step(value, number) } catch { promise = Promise(error: error) }
            let ready: Outcome<Iteration<Value>>? = promise.withLock { state in
                if !state.isPending { promise.markObserved(&state) }
                return promise.outcomeIfSettled(state)
            }
            guard let ready else {
                let cancelNow: Bool = current.withLock { current in
                    current.promise = promise
                    return current.cancelled
                }
                let next = number + 1
                promise.observeNow(asChild: true) { [self] outcome in
                    if case .fulfilled(.next(let value)) = outcome {
                        self.advance(from: value, number: next)
                    } else {
                        self.finish(outcome)
                    }
                }
                if cancelNow { promise.cancelAsChild() }
                return
            }
            guard case .fulfilled(.next(let nextValue)) = ready else {
                finish(ready)
                return
            }
            value = nextValue
            number += 1
        }
    }

    private func finish(_ outcome: Outcome<Iteration<Value>>) {
        switch outcome {
        case .fulfilled(.stop(let value)), .fulfilled(.next(let value)): result.settleNow(.fulfilled(value))
        case .rejected(let error): result.settleNow(.rejected(error))
        case .cancelled: result.settleNow(.cancelled)
        }
    }

    func cancel() {
        let promise = current.withLock { current -> Promise<Iteration<Value>>? in
            current.cancelled = true
            return current.promise
        }
        promise?.cancelAsChild()
    }
}
