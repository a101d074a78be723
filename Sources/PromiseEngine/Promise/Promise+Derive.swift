import Dispatch

/// What a derived promise's handler does with the outcome of the promise it
/// waits on.
@usableFromInline
package enum DerivedHandler<Input: Sendable, Value: Sendable>: Sendable {
    /// Transforms a value; errors and cancellation pass through.
    case map(@Sendable (Input) throws -> Value)
    /// Continues with another promise; errors and cancellation pass through.
    case then(@Sendable (Input) throws -> Promise<Value>)
    /// Sees every outcome (catch, recover, ensure, tap).
    case outcome(@Sendable (Outcome<Input>) throws -> Next<Value>)
}

/// What an outcome handler produced: an outcome now, or a promise to settle as.
@usableFromInline
package enum Next<Value: Sendable> {
    case outcome(Outcome<Value>)
    case promise(Promise<Value>)
}

extension Promise {
    /// Makes a promise derived from `self` by `handler`: the new promise waits
    /// on `self` (its upstream, for cancellation) and settles as the handler
    /// says. One allocation for the promise, one for the observer closure.
    @inlinable
    package final func derive<NewValue>(
        _ executor: PromiseContext, _ handler: DerivedHandler<Value, NewValue>
    ) -> Promise<NewValue> {
        let child = Promise<NewValue>(upstream: self)
        switch executor {
        case .inline:
            // The usual case gets closures that capture only the child and
            // the handler's own closure (not the enum around it, nor the
            // executor): 40 bytes, a 48-byte malloc chunk per link.
            switch handler {
            case .map(let transform):
                observeNow({ pointer, drain in
                    child.complete(from: Outcome<Value>.load(from: pointer), .map(transform), &drain)
                }, asChild: true)
            case .then(let body):
                observeNow({ pointer, drain in
                    child.complete(from: Outcome<Value>.load(from: pointer), .then(body), &drain)
                }, asChild: true)
            case .outcome(let body):
                observeNow({ pointer, drain in
                    child.complete(from: Outcome<Value>.load(from: pointer), .outcome(body), &drain)
                }, asChild: true)
            }
        case .queue(let queue):
            observeNow({ pointer, _ in
                let outcome = Outcome<Value>.load(from: pointer)
                queue.async {
                    var drain = Drain()
                    child.complete(from: outcome, handler, &drain)
                    drain.run()
                }
            }, asChild: true)
        }
        return child
    }

    /// Runs `handler` on the upstream's outcome and settles `self` with what
    /// it gives. A promise whose cancellation was requested settles as
    /// cancelled: its value is not wanted; handlers that see every outcome
    /// still run (with `.cancelled`).
    @inlinable
    final func complete<Input>(
        from upstreamOutcome: Outcome<Input>, _ handler: DerivedHandler<Input, Value>, _ drain: inout Drain
    ) {
        let input: Outcome<Input> = isCancelRequested ? .cancelled : upstreamOutcome
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

    /// Settles this promise as `other` settles (Promises/A+ 2.3.2: adopting
    /// the state of a promise a handler returned).
    @inlinable
    final func adopt(_ other: Promise<Value>, _ drain: inout Drain) {
        if other === self {
            settle(.rejected(PromiseError.chainingCycle), &drain)
            return
        }
        // Already settled (the usual case for synchronous chains): no observer needed.
        let ready: Outcome<Value>? = other.withLock { state in
            guard !state.isPending else { return nil }
            other.markObserved(&state)
            return other.outcomeIfSettled(state)
        }
        if let ready {
            settle(ready, &drain)
            return
        }
        let (cancelRequested, forwardingProgress) = replaceUpstream(with: other)
        other.observe({ [self] pointer, drain in
            self.settle(Outcome<Value>.load(from: pointer), &drain)
        }, asChild: true, &drain)
        if forwardingProgress {
            other.addProgressListener { [self] fraction in self.reportProgress(fraction) }
        }
        if cancelRequested { other.cancelAsChild() }
    }

    /// `adopt` from outside a drain.
    @inlinable
    final func adopt(_ other: Promise<Value>) {
        var drain = Drain()
        adopt(other, &drain)
        drain.run()
    }
}
