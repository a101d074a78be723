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

extension DerivedHandler {
    /// This handler, or, when `token` was invalidated since the handler was
    /// registered, one that does not run it: a value handler (`map`,
    /// `then`) then cancels the new promise where it would have run.
    /// Outcome handlers check their token themselves, as only they know
    /// whether they decide the outcome or look on.
    @inlinable
    func unless(invalidated token: TokenGuard?) -> Self {
        guard let token, !token.allows else { return self }
        switch self {
        case .map: return .map { _ in throw CancellationError() }
        case .then: return .then { _ in throw CancellationError() }
        case .outcome: return self
        }
    }
}

extension Promise {
    /// Makes a promise derived from `self` by `handler`: the new promise waits
    /// on `self` (its upstream, for cancellation) and settles as the handler
    /// says. One allocation for the promise, one for the observer closure.
    /// With `token`, a value handler does not run once the token is
    /// invalidated (`DerivedHandler.unless`).
    @inlinable
    package final func derive<NewValue>(
        _ context: PromiseContext, _ handler: DerivedHandler<Value, NewValue>, token: TokenGuard? = nil
    ) -> Promise<NewValue> {
        let child = Promise<NewValue>(upstream: self)
        guard case .inline = context, token == nil else {
            observe(on: context, handler, token, settling: child)
            return child
        }
        // The usual case gets closures that capture only the child and
        // the handler's own closure (not the enum around it, nor the
        // context): 40 bytes, a 48-byte malloc chunk per link.
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
        return child
    }

    /// `derive` for any context or a token: `child` settles from `handler`,
    /// run where `context` says, unless `token` was invalidated by then.
    @inlinable
    final func observe<NewValue>(
        on context: PromiseContext, _ handler: DerivedHandler<Value, NewValue>, _ token: TokenGuard?,
        settling child: Promise<NewValue>
    ) {
        switch context {
        case .inline:
            observeNow({ pointer, drain in
                child.complete(from: Outcome<Value>.load(from: pointer), handler.unless(invalidated: token), &drain)
            }, asChild: true)
        case .queue(let queue):
            observeNow({ pointer, _ in
                let outcome = Outcome<Value>.load(from: pointer)
                queue.async {
                    var drain = Drain()
                    child.complete(from: outcome, handler.unless(invalidated: token), &drain)
                    drain.run()
                }
            }, asChild: true)
        case .nowOr(let later):
            // Settled already (or settling on another thread): the handler
            // runs here, before the registering call returns.
            guard let settled = outcome else {
                observe(on: later, handler, token, settling: child)
                return
            }
            PromiseContext.executingNow {
                var drain = Drain()
                child.complete(from: settled, handler.unless(invalidated: token), &drain)
                drain.run()
            }
        }
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
