/// The settling side of a promise: fulfil, reject or cancel it, at most once
/// (later calls are ignored), report progress, and hear cancellation requests.
///
/// ```swift
/// func read(_ path: String) -> Promise<String> {
///     Promise { resolver in
///         legacyRead(path) { text, error in resolver.resolve(text, error) }
///     }
/// }
/// ```
public struct Resolver<Value: Sendable>: Sendable {
    @usableFromInline
    package let promise: Promise<Value>

    @usableFromInline
    init(_ promise: Promise<Value>) {
        self.promise = promise
    }

    /// Fulfils the promise with `value` (ignored if it has settled already).
    @inlinable
    public func fulfill(_ value: Value) {
        promise.settleNow(.fulfilled(value))
    }

    /// Rejects the promise with `error` (ignored if it has settled already).
    @inlinable
    public func reject(_ error: any Error) {
        promise.settleNow(.rejected(error))
    }

    /// Settles the promise as cancelled: the work stopped early.
    @inlinable
    public func cancel() {
        promise.settleNow(.cancelled)
    }

    /// Settles the promise with `outcome`: a value, an error or cancelled.
    @inlinable
    public func resolve(_ outcome: Outcome<Value>) {
        promise.settleNow(outcome)
    }

    /// Settles the promise with a `Result`, as from a completion handler
    /// that gives one: `legacy(resolver.resolve)`.
    @inlinable
    public func resolve(_ result: Result<Value, any Error>) {
        promise.settleNow(Outcome(result))
    }

    /// Settles this promise as `other` settles.
    public func resolve(with other: Promise<Value>) {
        promise.adopt(other)
    }

    /// Whether somebody asked for cancellation.
    public var isCancelRequested: Bool { promise.isCancelRequested }

    /// Runs `handler` when cancellation is requested (at once if it already
    /// was): stop the real work here, then settle, usually with `cancel()`.
    public func onCancel(_ handler: @escaping @Sendable () -> Void) {
        promise.addCancelHandler(handler)
    }

    /// Reports progress as a fraction from 0 to 1.
    public func progress(_ fraction: Double) {
        promise.reportProgress(fraction)
    }
}

extension Resolver where Value == Void {
    /// Fulfils a `Promise<Void>`.
    @inlinable
    public func fulfill() { fulfill(()) }
}
