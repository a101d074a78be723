// Chaining on success: then, map, compactMap, done, get, tap.
// A handler that throws rejects the new promise; an error or cancellation of
// `self` skips the handler and passes through.

extension Promise {
    /// Continues with the promise `body` returns; the new promise settles as it does.
    ///
    /// With a `token` invalidated before the handler would run, it does not
    /// run and the new promise is cancelled.
    ///
    /// ```swift
    /// login(user).then { token in fetchProfile(token) }   // a Promise<Profile>
    /// ```
    @inlinable
    public func then<NewValue>(
        on executor: PromiseContext = .inline,
        token: PromiseInvalidationToken? = nil,
        _ body: @escaping @Sendable (Value) throws -> Promise<NewValue>
    ) -> Promise<NewValue> {
        derive(executor, .then(body), token: token?.currentGuard)
    }

    /// Transforms the value.
    ///
    /// With a `token` invalidated before the handler would run, it does not
    /// run and the new promise is cancelled.
    ///
    /// ```swift
    /// fetchProfile(token).map { profile in profile.name }  // a Promise<String>
    /// ```
    @inlinable
    public func map<NewValue>(
        on executor: PromiseContext = .inline,
        token: PromiseInvalidationToken? = nil,
        _ transform: @escaping @Sendable (Value) throws -> NewValue
    ) -> Promise<NewValue> {
        derive(executor, .map(transform), token: token?.currentGuard)
    }

    /// Transforms the value; a nil result rejects with `PromiseError.nilValue`.
    /// With a `token` invalidated before the handler would run, it does not
    /// run and the new promise is cancelled.
    @inlinable
    public func compactMap<NewValue>(
        on executor: PromiseContext = .inline,
        token: PromiseInvalidationToken? = nil,
        _ transform: @escaping @Sendable (Value) throws -> NewValue?
    ) -> Promise<NewValue> {
        derive(
            executor,
            .map { value in
                guard let result = try transform(value) else { throw PromiseError.nilValue }
                return result
            }, token: token?.currentGuard)
    }

    /// Consumes the value; the new promise is fulfilled with `()`.
    ///
    /// With a `token` invalidated before the handler would run, it does not
    /// run and the new promise is cancelled.
    ///
    /// ```swift
    /// fetchProfile(token).done { profile in print(profile.name) }.catch { print($0) }
    /// ```
    @inlinable
    @discardableResult
    public func done(
        on executor: PromiseContext = .inline,
        token: PromiseInvalidationToken? = nil,
        _ body: @escaping @Sendable (Value) throws -> Void
    ) -> Promise<Void> {
        derive(executor, .map(body), token: token?.currentGuard)
    }

    /// Looks at the value and passes it on unchanged.
    /// With a `token` invalidated before the handler would run, it does not
    /// run and the outcome passes on.
    @inlinable
    public func get(
        on executor: PromiseContext = .inline,
        token: PromiseInvalidationToken? = nil,
        _ body: @escaping @Sendable (Value) throws -> Void
    ) -> Promise<Value> {
        derive(
            executor,
            .guardedOutcome { outcome, allowed in
                if allowed, case .fulfilled(let value) = outcome { try body(value) }
                return .outcome(outcome)
            }, token: token?.currentGuard)
    }

    /// Looks at the outcome, whatever it is, and passes it on unchanged.
    ///
    /// With a `token` invalidated before the handler would run, it does not
    /// run and the outcome passes on.
    ///
    /// ```swift
    /// fetch(url).tap { outcome in log("fetch: \(outcome)") }.done { use($0) }
    /// ```
    @inlinable
    public func tap(
        on executor: PromiseContext = .inline,
        token: PromiseInvalidationToken? = nil,
        _ body: @escaping @Sendable (Outcome<Value>) -> Void
    ) -> Promise<Value> {
        derive(
            executor,
            .guardedOutcome { outcome, allowed in
                if allowed { body(outcome) }
                return .outcome(outcome)
            }, token: token?.currentGuard)
    }

    /// The same promise with its value discarded.
    @inlinable
    public func asVoid() -> Promise<Void> {
        derive(.inline, .map { _ in () })
    }
}

/// Starts a chain: `firstly { fetch() }.then { ... }`. A thrown error rejects.
///
/// ```swift
/// firstly { login(user) }
///     .then { token in fetchProfile(token) }
///     .done { profile in print(profile.name) }
/// ```
@inlinable
public func firstly<Value>(_ body: () throws -> Promise<Value>) -> Promise<Value> {
    do {
        return try body()
    } catch is CancellationError {
        return .cancelled()
    } catch {
        return Promise(error: error)
    }
}
