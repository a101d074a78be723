// The spellings PromiseKit users reach for first, so that code written
// that way compiles here: `.value(x)`, `isPending`/`isFulfilled`/
// `isRejected`, `race(a, b)`, `.catch(SomeError.self) { }`,
// `Promise { seal in legacy(seal.resolve) }` for `(T?, Error?)` callbacks,
// `when(fulfilled: voids)` as a `Promise<Void>`, `when(fulfilled:
// iterator, concurrently: n)` and `done(on: .main)`.

import Dispatch

extension Promise {
    /// A promise already fulfilled with `value`:
    ///
    ///     let three = Promise.value(3)
    ///     fetch().then { cached in cached ? .value(0) : count() }
    @inlinable
    public static func value(_ value: Value) -> Promise<Value> {
        Promise(value: value)
    }

    /// Whether it has not settled yet.
    public var isPending: Bool { outcome == nil }

    /// Whether it settled with a value.
    public var isFulfilled: Bool {
        if case .fulfilled? = outcome { return true }
        return false
    }

    /// Whether it settled with an error (a cancelled promise is neither
    /// fulfilled nor rejected: `isCancelled`).
    public var isRejected: Bool {
        if case .rejected? = outcome { return true }
        return false
    }

    /// Handles only errors of type `type`; any other error passes on to
    /// the next `catch`, so handlers can be chained from the most specific:
    ///
    ///     fetch()
    ///         .catch(NetworkError.self) { error in retryLater(error) }
    ///         .catch { error in report(error) }
    /// With a `token` invalidated before the handler would run, it does not
    /// run and the new promise is cancelled.
    @discardableResult
    public func `catch`<Failure: Error>(
        _ type: Failure.Type,
        on executor: PromiseContext = .inline,
        token: PromiseInvalidationToken? = nil,
        _ body: @escaping @Sendable (Failure) throws -> Void
    ) -> Promise<Void> {
        derive(
            executor,
            .guardedOutcome { outcome, allowed in
                switch outcome {
                case .fulfilled: return .outcome(.fulfilled(()))
                case .rejected(let error):
                    guard let matched = error as? Failure else { return .outcome(.rejected(error)) }
                    guard allowed else { return .outcome(.cancelled) }
                    try body(matched)
                    return .outcome(.fulfilled(()))
                case .cancelled: return .outcome(.cancelled)
                }
            }, token: token?.currentGuard)
    }
}

extension Resolver {
    /// Settles from a completion handler's `(value, error)` pair: the error
    /// when there is one, else the value (a missing value is an error):
    ///
    ///     Promise<Data> { seal in legacyLoad(path, completion: seal.resolve) }
    public func resolve(_ value: Value?, _ error: (any Error)?) {
        if let error {
            reject(error)
        } else if let value {
            fulfill(value)
        } else {
            reject(PromiseError.noValueNorError)
        }
    }
}

extension PromiseContext {
    /// The main queue: `done(on: .main) { ... }` to update a user interface.
    public static var main: PromiseContext { .queue(.main) }
}

/// The first of two or more promises to settle decides (as `race(_:)` over
/// an array): `race(primary, mirror)`.
///
/// ```swift
/// race(fetch(primaryURL), fetch(mirrorURL)).done { use($0) }
/// ```
public func race<Value: Sendable>(_ first: Promise<Value>, _ second: Promise<Value>, _ more: Promise<Value>...) -> Promise<Value> {
    race([first, second] + more)
}

/// Every promise of `promises` fulfilled: a `Promise<Void>`, for
/// `when(fulfilled: saves).done { ... }`.
///
/// ```swift
/// when(fulfilled: files.map { save($0) }).done { print("all saved") }
/// ```
public func when(fulfilled promises: [Promise<Void>], cancelOthersOnFailure: Bool = false) -> Promise<Void> {
    // The array form (its result type picks it, not this function).
    let all: Promise<[Void]> = when(fulfilled: promises, cancelOthersOnFailure: cancelOthersOnFailure)
    return all.map { _ in () }
}

/// The promises an iterator makes, at most `concurrently` in flight (each
/// is made only when a slot is free), values in order. A `concurrently`
/// of 0 or less rejects with `PromiseError.badInput`, as PromiseKit's does:
///
/// ```swift
/// var pages = (1...100).makeIterator()
/// let all = when(fulfilled: AnyIterator { pages.next().map(fetchPage) }, concurrently: 4)
/// ```
public func when<Value: Sendable>(fulfilled promises: sending AnyIterator<Promise<Value>>, concurrently: Int) -> Promise<[Value]> {
    when(fulfilled: IteratorSequence(promises), limit: concurrently) { $0 }
}
