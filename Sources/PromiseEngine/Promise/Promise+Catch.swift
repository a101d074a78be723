// Handling errors and every outcome: catch, recover, ensure, ensureThen, finally.
// Cancellation is not an error: catch and recover let it pass.

extension Promise {
    /// Handles an error at the end of a chain. The new promise is fulfilled
    /// once the error was handled (or when there was none); it is rejected if
    /// `body` throws, and cancelled if `self` was.
    ///
    /// ```swift
    /// upload(file).done { print("sent") }.catch { error in print("not sent: \(error)") }
    /// ```
    @inlinable
    @discardableResult
    public func `catch`(
        on executor: PromiseContext = .inline,
        _ body: @escaping @Sendable (any Error) throws -> Void
    ) -> Promise<Void> {
        derive(executor, .outcome { outcome in
            switch outcome {
            case .fulfilled: return .outcome(.fulfilled(()))
            case .rejected(let error):
                try body(error)
                return .outcome(.fulfilled(()))
            case .cancelled: return .outcome(.cancelled)
            }
        })
    }

    /// Replaces an error with the promise `body` returns (throw to pass an error on).
///
/// ```swift
/// fetch(primaryURL).recover { _ in fetch(mirrorURL) }
/// ```
    @inlinable
    public func recover(
        on executor: PromiseContext = .inline,
        _ body: @escaping @Sendable (any Error) throws -> Promise<Value>
    ) -> Promise<Value> {
        derive(executor, .outcome { outcome in
            if case .rejected(let error) = outcome { return .promise(try body(error)) }
            return .outcome(outcome)
        })
    }

    /// Replaces an error with a value (throw to pass an error on).
///
/// ```swift
/// loadCache().recover { _ in [] }             // an empty list when there is no cache
/// ```
    @inlinable
    public func recover(
        on executor: PromiseContext = .inline,
        _ body: @escaping @Sendable (any Error) throws -> Value
    ) -> Promise<Value> {
        derive(executor, .outcome { outcome in
            if case .rejected(let error) = outcome { return .outcome(.fulfilled(try body(error))) }
            return .outcome(outcome)
        })
    }

    /// Runs `body` on every outcome (cancellation too) and passes the outcome on.
    /// If `body` throws and `self` was fulfilled, the new promise is rejected
    /// with that error; an earlier error stays.
///
/// ```swift
/// spinner.start()
/// fetch(url).ensure { spinner.stop() }.done { use($0) }
/// ```
    @inlinable
    public func ensure(
        on executor: PromiseContext = .inline,
        _ body: @escaping @Sendable () throws -> Void
    ) -> Promise<Value> {
        derive(executor, .outcome { outcome in
            do {
                try body()
            } catch {
                if case .fulfilled = outcome { throw error }
            }
            return .outcome(outcome)
        })
    }

    /// As `ensure`, waiting for the promise `body` returns before passing the
    /// outcome on. If that promise fails while `self` was fulfilled, the new
    /// promise fails with its error; an earlier failure stays, and
    /// `onSecondaryError` hears the ensure's error.
    @inlinable
    public func ensureThen(
        on executor: PromiseContext = .inline,
        onSecondaryError: (@Sendable (any Error) -> Void)? = nil,
        _ body: @escaping @Sendable () throws -> Promise<Void>
    ) -> Promise<Value> {
        derive(executor, .outcome { outcome in
            let cleanup: Promise<Void>
            do { cleanup = try body() } catch { cleanup = Promise<Void>(error: error) }
            return .promise(cleanup.derive(.inline, .outcome { cleanupOutcome in
                switch (outcome, cleanupOutcome) {
                case (.fulfilled, .rejected(let error)): return .outcome(.rejected(error))
                case (.fulfilled, .cancelled): return .outcome(.cancelled)
                case (_, .rejected(let error)):
                    onSecondaryError?(error)
                    return .outcome(outcome)
                default: return .outcome(outcome)
                }
            }))
        })
    }

    /// Runs `body` on every outcome at the end of a chain.
///
/// ```swift
/// fetch(url).done { use($0) }.catch { report($0) }.finally { spinner.stop() }
/// ```
    @inlinable
    public func finally(
        on executor: PromiseContext = .inline,
        _ body: @escaping @Sendable () -> Void
    ) {
        _ = derive(executor, .outcome { outcome in
            body()
            return .outcome(outcome)
        }) as Promise<Value>
    }
}
