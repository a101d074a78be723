public import Synchronization

/// Silences callbacks you no longer want, and cancels promises you no
/// longer need, in one call (Tomorrowland's `PromiseInvalidationToken`).
///
/// A handler registered with a token (`map(token:)`, `done(token:)`,
/// `catch(token:)`, ...) does not run if the token is invalidated before
/// the handler would start, wherever it would run. The promise such a
/// handler would have settled is cancelled instead; handlers that only look
/// on (`get`, `tap`, `ensure`, `ensureThen`, `finally`) are skipped and the
/// outcome passes on. Invalidating affects the handlers registered before
/// it: the token is reusable, and a handler registered afterwards runs.
///
/// Promises handed to `requestCancelOnInvalidate` are asked to cancel at
/// the next `invalidate()` (or `cancelWithoutInvalidating()`). A token
/// invalidates itself when it is released, unless made with
/// `invalidateOnDeinit: false`; handlers keep only its inner state, never
/// the token, so an object that owns a token silences and cancels its work
/// by going away.
///
/// ```swift
/// final class ProfileScreen {
///     let token = PromiseInvalidationToken()     // invalidated when the screen goes away
///     func reload() {
///         token.invalidate()                     // the previous load's handlers will not run
///         fetchProfile()
///             .done(token: token) { [weak self] profile in self?.show(profile) }
///             .requestCancelOnInvalidate(token)  // and its download stops at the next invalidate
///     }
/// }
/// ```
public final class PromiseInvalidationToken: Sendable {
    @usableFromInline
    let core = TokenCore()
    private let invalidateOnDeinit: Bool

    /// A token. With `invalidateOnDeinit` (the default), releasing the last
    /// reference to it invalidates it.
    ///
    /// ```swift
    /// let token = PromiseInvalidationToken()
    /// let keep = PromiseInvalidationToken(invalidateOnDeinit: false)   // only `invalidate()` does
    /// ```
    public init(invalidateOnDeinit: Bool = true) {
        self.invalidateOnDeinit = invalidateOnDeinit
    }

    deinit {
        if invalidateOnDeinit { core.invalidate() }
    }

    /// Invalidates the token: handlers registered with it so far will not
    /// run (their promises are cancelled instead), the promises registered
    /// with `requestCancelOnInvalidate` are asked to cancel, and tokens
    /// chained from this one are invalidated in turn.
    ///
    /// ```swift
    /// search(text).done(token: token) { results in show(results) }
    /// token.invalidate()                         // the user typed again: drop that answer
    /// ```
    public func invalidate() {
        core.invalidate()
    }

    /// Asks the promises registered with `requestCancelOnInvalidate` to
    /// cancel without invalidating the token: handlers registered with it
    /// still run (and see the cancellation). Tokens chained with
    /// `includingCancelWithoutInvalidating` do the same.
    ///
    /// ```swift
    /// token.cancelWithoutInvalidating()          // stop the downloads, keep the handlers
    /// ```
    public func cancelWithoutInvalidating() {
        core.cancelWithoutInvalidating()
    }

    /// Asks `promise` to cancel at the next `invalidate()` or
    /// `cancelWithoutInvalidating()` (once). The token holds the promise
    /// weakly: a promise that went away is simply dropped.
    ///
    /// ```swift
    /// token.requestCancelOnInvalidate(download)
    /// ```
    public func requestCancelOnInvalidate(_ promise: AnyPromise) {
        core.requestCancelOnInvalidate(promise)
    }

    /// Invalidates this token whenever `parent` is invalidated, so one call
    /// reaches a whole tree of tokens. With
    /// `includingCancelWithoutInvalidating` (the default), the parent's
    /// `cancelWithoutInvalidating()` reaches this token too. The parent holds
    /// this token's state weakly; chaining a token to itself does nothing,
    /// and a cycle of chains invalidates each token once.
    ///
    /// ```swift
    /// let session = PromiseInvalidationToken()       // invalidated at log-out
    /// let screen = PromiseInvalidationToken()
    /// screen.chainInvalidation(from: session)         // log-out silences the screen's work too
    /// ```
    public func chainInvalidation(from parent: PromiseInvalidationToken, includingCancelWithoutInvalidating: Bool = true) {
        parent.core.chain(core, includingCancel: includingCancelWithoutInvalidating)
    }

    /// What a handler registered now keeps: the token's state and the
    /// current generation.
    @inlinable
    var currentGuard: TokenGuard {
        TokenGuard(core: core, generation: core.generation.load(ordering: .acquiring))
    }
}

/// What a handler registered with a token checks before it runs: that the
/// token was not invalidated since (its generation is unchanged). It holds
/// the token's state, not the token, so the token can still go away and
/// invalidate itself.
@usableFromInline
package struct TokenGuard: Sendable {
    @usableFromInline let core: TokenCore
    @usableFromInline let generation: UInt

    @inlinable
    init(core: TokenCore, generation: UInt) {
        self.core = core
        self.generation = generation
    }

    /// Whether the handler may run: the token was not invalidated since it
    /// was registered.
    @inlinable
    var allows: Bool { core.generation.load(ordering: .acquiring) == generation }
}

/// A token's state: its generation (each `invalidate()` adds one), the
/// promises to cancel at the next invalidation, and the tokens chained from
/// it.
@usableFromInline
package final class TokenCore: Sendable {
    @usableFromInline
    let generation = Atomic<UInt>(0)
    private let registry = Lock(Registry())

    struct Registry {
        /// Asked to cancel at the next invalidation (then forgotten).
        var cancelOnInvalidate: [WeakPromise] = []
        /// Tokens invalidated with this one.
        var chained: [ChainedToken] = []
    }

    struct WeakPromise {
        weak var promise: AnyPromise?
    }

    struct ChainedToken {
        weak var core: TokenCore?
        let includingCancel: Bool
    }

    init() {}

    func requestCancelOnInvalidate(_ promise: AnyPromise) {
        registry.withLock { registry in
            // Forget promises that went away, so a long-lived token that
            // is rarely invalidated does not grow without end.
            if registry.cancelOnInvalidate.count >= 16, registry.cancelOnInvalidate.count.nonzeroBitCount == 1 {
                registry.cancelOnInvalidate.removeAll { $0.promise == nil }
            }
            registry.cancelOnInvalidate.append(WeakPromise(promise: promise))
        }
    }

    func chain(_ child: TokenCore, includingCancel: Bool) {
        guard child !== self else { return }
        registry.withLock { registry in
            registry.chained.removeAll { $0.core == nil }
            registry.chained.append(ChainedToken(core: child, includingCancel: includingCancel))
        }
    }

    func invalidate() {
        reach(invalidating: true)
    }

    func cancelWithoutInvalidating() {
        reach(invalidating: false)
    }

    /// This token and every token chained from it (following only chains
    /// that include cancelling when not invalidating), each once, in the
    /// order they were chained: the generation moves on (when
    /// invalidating), then the registered promises are asked to cancel.
    private func reach(invalidating: Bool) {
        var pending: [TokenCore] = [self]
        var seen: Set<ObjectIdentifier> = [ObjectIdentifier(self)]
        var next = 0
        while next < pending.count {
            let core = pending[next]
            next += 1
            let (promises, chained) = core.takeRegistered(invalidating: invalidating)
            for entry in promises { entry.promise?.cancel() }
            for entry in chained where invalidating || entry.includingCancel {
                guard let child = entry.core, seen.insert(ObjectIdentifier(child)).inserted else { continue }
                pending.append(child)
            }
        }
    }

    /// Moves the generation on (when invalidating) and takes the promises
    /// to cancel; reads the chained tokens before any user code runs.
    private func takeRegistered(invalidating: Bool) -> ([WeakPromise], [ChainedToken]) {
        registry.withLock { registry in
            if invalidating { generation.add(1, ordering: .acquiringAndReleasing) }
            defer { registry.cancelOnInvalidate = [] }
            return (registry.cancelOnInvalidate, registry.chained)
        }
    }
}
