public import Dispatch

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
    /// Sees every outcome, and whether the handler's code may run: false
    /// once the token it was registered with was invalidated (always true
    /// without one). For the chaining methods with a `token:` parameter;
    /// each knows whether its code decides the outcome or looks on.
    case guardedOutcome(@Sendable (Outcome<Input>, _ allowed: Bool) throws -> Next<Value>)
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
    /// With `token`, the handler's code does not run once the token is
    /// invalidated (`complete`).
    @inlinable
    package final func derive<NewValue>(
        _ context: PromiseContext, _ handler: DerivedHandler<Value, NewValue>, token: TokenGuard? = nil
    ) -> Promise<NewValue> {
        let child = Promise<NewValue>(upstream: self)
        // The queues and `.nowOr` take `observe(on:)`, which must stay
        // inlinable (not recursive): when it was a call the optimizer could
        // not see into, a handler's closure (`recover`'s, `ensure`'s) kept a
        // context of its own even on the `.inline` path, an allocation more
        // per link (Benchmarks/README.md counts them).
        guard case .inline = context else {
            observe(on: context, handler, token, settling: child)
            return child
        }
        if let token {
            observeInline(handler, checking: token, settling: child)
        } else {
            observeInline(handler, checking: Unguarded(), settling: child)
        }
        return child
    }

    /// `derive` on `.inline`: closures that capture only the child, the
    /// handler's own closure (not the enum around it, nor the context) and
    /// the check (nothing without a token: `Unguarded` is empty): 40 bytes,
    /// a 48-byte malloc chunk per link; 56 with a token.
    @inlinable
    final func observeInline<NewValue, Check: HandlerCheck>(
        _ handler: DerivedHandler<Value, NewValue>, checking check: Check, settling child: Promise<NewValue>
    ) {
        switch handler {
        case .map(let transform):
            observeNow(
                { pointer, drain in
                    child.complete(from: Outcome<Value>.load(from: pointer), .map(transform), allowed: check.allows, &drain)
                }, asChild: true)
        case .then(let body):
            observeNow(
                { pointer, drain in
                    child.complete(from: Outcome<Value>.load(from: pointer), .then(body), allowed: check.allows, &drain)
                }, asChild: true)
        case .outcome(let body):
            observeNow(
                { pointer, drain in
                    child.complete(from: Outcome<Value>.load(from: pointer), .outcome(body), allowed: check.allows, &drain)
                }, asChild: true)
        case .guardedOutcome(let body):
            observeNow(
                { pointer, drain in
                    child.complete(from: Outcome<Value>.load(from: pointer), .guardedOutcome(body), allowed: check.allows, &drain)
                }, asChild: true)
        }
    }

    /// `derive` for any context or a token: `child` settles from `handler`,
    /// run where `context` says, unless `token` was invalidated by then.
    /// (Not recursive, so that it inlines into `derive`.)
    @inlinable
    final func observe<NewValue>(
        on context: PromiseContext, _ handler: DerivedHandler<Value, NewValue>, _ token: TokenGuard?,
        settling child: Promise<NewValue>
    ) {
        var context = context
        if case .nowOr(let later) = context {
            // Settled already (or settling on another thread): the handler
            // runs here, before the registering call returns.
            if let settled = outcome {
                PromiseContext.executingNow {
                    var drain = Drain()
                    child.complete(from: settled, handler, allowed: token.allows, &drain)
                    drain.run()
                }
                return
            }
            context = later
            // A `.nowOr` inside a `.nowOr` has been answered: not settled.
            while case .nowOr(let inner) = context { context = inner }
        }
        if case .queue(let queue) = context {
            observeNow(
                { pointer, _ in
                    let outcome = Outcome<Value>.load(from: pointer)
                    queue.async {
                        var drain = Drain()
                        child.complete(from: outcome, handler, allowed: token.allows, &drain)
                        drain.run()
                    }
                }, asChild: true)
        } else {
            observeNow(
                { pointer, drain in
                    child.complete(from: Outcome<Value>.load(from: pointer), handler, allowed: token.allows, &drain)
                }, asChild: true)
        }
    }

    /// Runs `handler` on the upstream's outcome and settles `self` with what
    /// it gives. A promise whose cancellation was requested settles as
    /// cancelled: its value is not wanted; handlers that see every outcome
    /// still run (with `.cancelled`). When not `allowed` (its token was
    /// invalidated since the handler was registered), a value handler does
    /// not run and `self` is cancelled where it would have; a guarded
    /// outcome handler is told.
    @inlinable
    final func complete<Input>(
        from upstreamOutcome: Outcome<Input>, _ handler: DerivedHandler<Input, Value>, allowed: Bool = true,
        _ drain: inout Drain
    ) {
        let input: Outcome<Input> = isCancelRequested ? .cancelled : upstreamOutcome
        switch handler {
        case .map(let transform):
            switch input {
            case .fulfilled(let value):
                settle(allowed ? Outcome { try transform(value) } : .cancelled, &drain)
            case .rejected(let error): settle(.rejected(error), &drain)
            case .cancelled: settle(.cancelled, &drain)
            }
        case .then(let body):
            switch input {
            case .fulfilled(let value):
                guard allowed else {
                    settle(.cancelled, &drain)
                    return
                }
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
            settle(from: { try body(input) }, &drain)
        case .guardedOutcome(let body):
            settle(from: { try body(input, allowed) }, &drain)
        }
    }

    /// Settles with what an outcome handler gives: an outcome, a promise to
    /// adopt, or an error (a `CancellationError` cancels).
    @inlinable
    @inline(__always)
    final func settle(from handler: () throws -> Next<Value>, _ drain: inout Drain) {
        do {
            switch try handler() {
            case .outcome(let next): settle(next, &drain)
            case .promise(let next): adopt(next, &drain)
            }
        } catch is CancellationError {
            settle(.cancelled, &drain)
        } catch {
            settle(.rejected(error), &drain)
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
        other.observe(
            { [self] pointer, drain in
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
