// Handling errors and every outcome: catch, recover, ensure, ensureThen, finally.
// Cancellation is not an error: catch and recover let it pass.

extension Promise {
    /// Handles an error at the end of a chain. The new promise is fulfilled
    /// once the error was handled (or when there was none); it is rejected if
    /// `body` throws, and cancelled if `self` was.
    ///
    /// With a `token` invalidated before the handler would run, it does not
    /// run and the new promise is cancelled.
    ///
    /// ```swift
    /// upload(file).done { print("sent") }.catch { error in print("not sent: \(error)") }
    /// ```
    @inlinable
    @discardableResult
    public func `catch`(
        on executor: PromiseContext = .inline,
        token: PromiseInvalidationToken? = nil,
        _ body: @escaping @Sendable (any Error) throws -> Void
    ) -> Promise<Void> {
        derive(
            executor,
            .guardedOutcome { outcome, allowed in
                switch outcome {
                case .fulfilled: return .outcome(.fulfilled(()))
                case .rejected(let error):
                    guard allowed else { return .outcome(.cancelled) }
                    try body(error)
                    return .outcome(.fulfilled(()))
                case .cancelled: return .outcome(.cancelled)
                }
            }, token: token?.currentGuard)
    }

    /// Replaces an error with the promise `body` returns (throw to pass an error on).
    ///
    /// With a `token` invalidated before the handler would run, it does not
    /// run and the new promise is cancelled.
    ///
    /// ```swift
    /// fetch(primaryURL).recover { _ in fetch(mirrorURL) }
    /// ```
    @inlinable
    public func recover(
        on executor: PromiseContext = .inline,
        token: PromiseInvalidationToken? = nil,
        _ body: @escaping @Sendable (any Error) throws -> Promise<Value>
    ) -> Promise<Value> {
        derive(
            executor,
            .guardedOutcome { outcome, allowed in
                guard case .rejected(let error) = outcome else { return .outcome(outcome) }
                guard allowed else { return .outcome(.cancelled) }
                return .promise(try body(error))
            }, token: token?.currentGuard)
    }

    /// Replaces an error with a value (throw to pass an error on).
    ///
    /// With a `token` invalidated before the handler would run, it does not
    /// run and the new promise is cancelled.
    ///
    /// ```swift
    /// loadCache().recover { _ in [] }             // an empty list when there is no cache
    /// ```
    @inlinable
    public func recover(
        on executor: PromiseContext = .inline,
        token: PromiseInvalidationToken? = nil,
        _ body: @escaping @Sendable (any Error) throws -> Value
    ) -> Promise<Value> {
        derive(
            executor,
            .guardedOutcome { outcome, allowed in
                guard case .rejected(let error) = outcome else { return .outcome(outcome) }
                guard allowed else { return .outcome(.cancelled) }
                return .outcome(.fulfilled(try body(error)))
            }, token: token?.currentGuard)
    }

    /// Runs `body` on every outcome (cancellation too) and passes the outcome on.
    /// If `body` throws and `self` was fulfilled, the new promise is rejected
    /// with that error; an earlier error stays.
    ///
    /// With a `token` invalidated before the handler would run, it does not
    /// run and the outcome passes on.
    ///
    /// ```swift
    /// spinner.start()
    /// fetch(url).ensure { spinner.stop() }.done { use($0) }
    /// ```
    @inlinable
    public func ensure(
        on executor: PromiseContext = .inline,
        token: PromiseInvalidationToken? = nil,
        _ body: @escaping @Sendable () throws -> Void
    ) -> Promise<Value> {
        derive(
            executor,
            .guardedOutcome { outcome, allowed in
                do {
                    if allowed { try body() }
                } catch {
                    if case .fulfilled = outcome { throw error }
                }
                return .outcome(outcome)
            }, token: token?.currentGuard)
    }

    /// As `ensure`, waiting for the promise `body` returns before passing the
    /// outcome on. If that promise fails while `self` was fulfilled, the new
    /// promise fails with its error; an earlier failure stays, and
    /// `onSecondaryError` hears the ensure's error.
    /// With a `token` invalidated before the handler would run, it does not
    /// run and the outcome passes on.
    @inlinable
    public func ensureThen(
        on executor: PromiseContext = .inline,
        token: PromiseInvalidationToken? = nil,
        onSecondaryError: (@Sendable (any Error) -> Void)? = nil,
        _ body: @escaping @Sendable () throws -> Promise<Void>
    ) -> Promise<Value> {
        derive(
            executor,
            .guardedOutcome { outcome, allowed in
                guard allowed else { return .outcome(outcome) }
                let cleanup: Promise<Void>
                do { cleanup = try body() } catch { cleanup = Promise<Void>(error: error) }
                return .promise(
                    cleanup.derive(
                        .inline,
                        .outcome { cleanupOutcome in
                            switch (outcome, cleanupOutcome) {
                            case (.fulfilled, .rejected(let error)): return .outcome(.rejected(error))
                            case (.fulfilled, .cancelled): return .outcome(.cancelled)
                            case (_, .rejected(let error)):
                                onSecondaryError?(error)
                                return .outcome(outcome)
                            default: return .outcome(outcome)
                            }
                        }))
            }, token: token?.currentGuard)
    }

    /// Runs `body` on every outcome at the end of a chain.
    ///
    /// With a `token` invalidated before the handler would run, it does not
    /// run and the outcome passes on.
    ///
    /// ```swift
    /// fetch(url).done { use($0) }.catch { report($0) }.finally { spinner.stop() }
    /// ```
    @inlinable
    public func finally(
        on executor: PromiseContext = .inline,
        token: PromiseInvalidationToken? = nil,
        _ body: @escaping @Sendable () -> Void
    ) {
        _ =
            derive(
                executor,
                .guardedOutcome { outcome, allowed in
                    if allowed { body() }
                    return .outcome(outcome)
                }, token: token?.currentGuard) as Promise<Value>
    }
}
