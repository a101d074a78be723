// Invalidation tokens on promises: cancelling at a token's invalidation or
// an owner's deinit, and the handler wrappers the chaining methods use for
// their `token:` parameter.

extension Promise {
    /// Asks this promise to cancel at the token's next invalidation (the
    /// same as `token.requestCancelOnInvalidate(self)`), and returns it: the
    /// end of a chain whose handlers use the same token.
    ///
    /// ```swift
    /// fetch(url)
    ///     .done(token: token) { show($0) }
    ///     .catch(token: token) { report($0) }
    ///     .requestCancelOnInvalidate(token)
    /// ```
    @discardableResult
    public func requestCancelOnInvalidate(_ token: PromiseInvalidationToken) -> Promise<Value> {
        token.requestCancelOnInvalidate(self)
        return self
    }

    /// Asks this promise to cancel when `owner` is released, and returns it.
    ///
    /// Tomorrowland attaches a token to any object with Objective-C's
    /// associated objects; Swift on Linux has none, so the owner keeps the
    /// token itself (`PromiseTokenOwner`), made with the default
    /// `invalidateOnDeinit: true`, and its release invalidates it.
    ///
    /// ```swift
    /// final class Downloader: PromiseTokenOwner {
    ///     let promiseToken = PromiseInvalidationToken()
    ///     func start(_ url: String) {
    ///         fetch(url).done { save($0) }.requestCancelOnDeinit(self)
    ///     }
    /// }
    /// ```
    @discardableResult
    public func requestCancelOnDeinit(_ owner: some PromiseTokenOwner) -> Promise<Value> {
        requestCancelOnInvalidate(owner.promiseToken)
    }
}

/// An object whose release cancels promises: it keeps a token that
/// invalidates when the object goes away (`Promise.requestCancelOnDeinit`).
///
/// ```swift
/// final class SearchScreen: PromiseTokenOwner {
///     let promiseToken = PromiseInvalidationToken()     // invalidates on deinit
/// }
/// ```
public protocol PromiseTokenOwner: AnyObject {
    /// The token the object owns; it should invalidate on deinit (the
    /// default of `PromiseInvalidationToken()`).
    var promiseToken: PromiseInvalidationToken { get }
}

// The wrappers below leave `body` as it is when there is no token (no
// allocation, no check); with one, the wrapper checks it when the handler
// would run, after any hop to another context.

/// For handlers that look on: with a token invalidated since, `body` is
/// skipped and the outcome passes on.
@inlinable
func skipping<Argument>(
    _ body: @escaping @Sendable (Argument) throws -> Void, when token: PromiseInvalidationToken?
) -> @Sendable (Argument) throws -> Void {
    guard let check = token?.currentGuard else { return body }
    return { argument in if check.allows { try body(argument) } }
}

/// `skipping` for a handler that takes nothing; `otherwise` stands in for
/// what it would have returned.
@inlinable
func skipping<Result>(
    _ body: @escaping @Sendable () throws -> Result, when token: PromiseInvalidationToken?,
    otherwise: @escaping @Sendable () -> Result
) -> @Sendable () throws -> Result {
    guard let check = token?.currentGuard else { return body }
    return { check.allows ? try body() : otherwise() }
}

/// `skipping` for a handler that takes nothing and returns nothing.
@inlinable
func skipping(
    _ body: @escaping @Sendable () throws -> Void, when token: PromiseInvalidationToken?
) -> @Sendable () throws -> Void {
    skipping(body, when: token, otherwise: {})
}

/// For handlers that decide the new promise's outcome: with a token
/// invalidated since, `body` does not run and the new promise is cancelled
/// (a `CancellationError` thrown in a handler cancels).
@inlinable
func cancelling<Argument, Result>(
    _ body: @escaping @Sendable (Argument) throws -> Result, when token: PromiseInvalidationToken?
) -> @Sendable (Argument) throws -> Result {
    guard let check = token?.currentGuard else { return body }
    return { argument in
        guard check.allows else { throw CancellationError() }
        return try body(argument)
    }
}
