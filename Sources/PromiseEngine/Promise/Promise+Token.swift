// Invalidation tokens on promises: cancelling at a token's invalidation or
// an owner's deinit, and the check behind the chaining methods' `token:`.

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

/// What a handler checks where it would run: whether its code may run.
@usableFromInline
protocol HandlerCheck: Sendable {
    var allows: Bool { get }
}

/// No token: always. Empty, so a closure that captures it grows by nothing.
@usableFromInline
struct Unguarded: HandlerCheck {
    @inlinable init() {}
    @inlinable var allows: Bool { true }
}

extension TokenGuard: HandlerCheck {}

extension Optional where Wrapped == TokenGuard {
    /// Whether a handler registered with this guard may run: always without
    /// a token.
    @inlinable
    var allows: Bool {
        guard let check = self else { return true }
        return check.allows
    }
}
