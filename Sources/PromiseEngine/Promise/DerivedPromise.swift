/// What a derived promise's handler produced: an outcome now, or a promise
/// to settle as.
@usableFromInline
enum Next<Value: Sendable> {
    case outcome(Outcome<Value>)
    case promise(Promise<Value>)
}

/// A promise made by `then`, `map`, `catch`, ... on another promise. It is
/// its own observer of that promise: one allocation per link.
@usableFromInline
final class DerivedPromise<Input: Sendable, Value: Sendable>: Promise<Value>, PromiseObserver, @unchecked Sendable {
    // @unchecked: see `handler`; everything else is immutable or in the Mutex.
    @usableFromInline
    enum Handler: Sendable {
        /// Transforms a value; errors and cancellation pass through.
        case map(@Sendable (Input) throws -> Value)
        /// Continues with another promise; errors and cancellation pass through.
        case then(@Sendable (Input) throws -> Promise<Value>)
        /// Sees every outcome (catch, recover, ensure, tap).
        case outcome(@Sendable (Outcome<Input>) throws -> Next<Value>)
    }

    /// Taken by the one call to `receive`, so a settled chain does not keep
    /// its closures alive.
    nonisolated(unsafe) private var handler: Handler?
    // nonisolated(unsafe): written in init and read once in `receive`; the
    // observed promise notifies each observer exactly once, and that
    // notification happens after init (the observer was registered by then).

    private let executor: Executor

    @usableFromInline
    init(upstream: Promise<Input>, executor: Executor, handler: Handler) {
        self.handler = handler
        self.executor = executor
        super.init(upstream: upstream)
    }

    @usableFromInline
    func receive(_ outcome: Outcome<Input>, _ drain: inout Drain) {
        switch executor {
        case .inline:
            run(outcome, &drain)
        case .queue(let queue):
            queue.async {
                var drain = Drain()
                self.run(outcome, &drain)
                drain.run()
            }
        }
    }

    private func run(_ outcome: Outcome<Input>, _ drain: inout Drain) {
        guard let handler else { return }
        self.handler = nil
        // A promise whose cancellation was requested settles as cancelled:
        // its value is not wanted. Handlers that see every outcome still run.
        let input: Outcome<Input> = isCancelRequested ? .cancelled : outcome
        switch handler {
        case .map(let transform):
            switch input {
            case .fulfilled(let value): settle(Outcome { try transform(value) }, &drain)
            case .rejected(let error): settle(.rejected(error), &drain)
            case .cancelled: settle(.cancelled, &drain)
            }
        case .then(let body):
            switch input {
            case .fulfilled(let value):
                do {
                    adopt(try body(value), &drain)
                } catch is CancellationError {
                    settle(.cancelled, &drain)
                } catch {
                    settle(.rejected(error), &drain)
                }
            case .rejected(let error): settle(.rejected(error), &drain)
            case .cancelled: settle(.cancelled, &drain)
            }
        case .outcome(let body):
            do {
                switch try body(input) {
                case .outcome(let next): settle(next, &drain)
                case .promise(let next): adopt(next, &drain)
                }
            } catch is CancellationError {
                settle(.cancelled, &drain)
            } catch {
                settle(.rejected(error), &drain)
            }
        }
    }
}

/// Settles a target promise as the observed promise settles.
@usableFromInline
final class Forward<Value: Sendable>: PromiseObserver {
    @usableFromInline let target: Promise<Value>

    @usableFromInline
    init(_ target: Promise<Value>) {
        self.target = target
    }

    @usableFromInline
    func receive(_ outcome: Outcome<Value>, _ drain: inout Drain) {
        target.settle(outcome, &drain)
    }
}

extension Promise {
    /// Makes a derived promise of `self` with `handler`.
    @usableFromInline
    final func derive<NewValue>(
        _ executor: Executor, _ handler: DerivedPromise<Value, NewValue>.Handler
    ) -> Promise<NewValue> {
        let child = DerivedPromise<Value, NewValue>(upstream: self, executor: executor, handler: handler)
        observeNow(child, asChild: true)
        return child
    }

    /// Settles this promise as `other` settles (Promises/A+ 2.3.2: adopting
    /// the state of a promise a handler returned).
    @usableFromInline
    final func adopt(_ other: Promise<Value>, _ drain: inout Drain) {
        if other === self {
            settle(.rejected(PromiseError.chainingCycle), &drain)
            return
        }
        // Already settled (the usual case for synchronous chains): no observer needed.
        let ready: Outcome<Value>? = other.state.withLock { state in
            guard !state.isPending else { return nil }
            state.observed = true
            return state.outcome
        }
        if let ready {
            settle(ready, &drain)
            return
        }
        let (cancelRequested, forwardingProgress) = replaceUpstream(with: other)
        other.observe(Forward(self), asChild: true, &drain)
        if forwardingProgress {
            other.addProgressListener { [self] fraction in self.reportProgress(fraction) }
        }
        if cancelRequested { other.cancelAsChild() }
    }

    /// `adopt` from outside a drain.
    @usableFromInline
    final func adopt(_ other: Promise<Value>) {
        var drain = Drain()
        adopt(other, &drain)
        drain.run()
    }
}
