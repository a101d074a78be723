/// What every promise has whatever its value type: cancellation, and the
/// hooks the drain loop and derived promises use.
///
/// `Promise<Value>` is its only subclass family; the base class exists so an
/// upstream link and a queued promise are one pointer each, without an
/// existential.
///
/// ```swift
/// let work: [AnyPromise] = [download, upload]  // promises of any value types
/// for promise in work { promise.cancel() }
/// ```
public class AnyPromise: @unchecked Sendable {
    // @unchecked: the class has no stored state; subclasses guard theirs with a lock.

    @usableFromInline
    init() {}

    /// Requests cancellation of this promise.
    ///
    /// Cancellation is a request that reaches the real work: the promise's
    /// cancel handlers run (a process step kills its process group, an HTTP
    /// step cancels its request) and the promise settles as `.cancelled` once
    /// the work has stopped. A derived promise (from `then`, `map`, ...)
    /// passes the request to the promise it waits on, which is cancelled when
    /// all of its children have asked. Settled promises ignore the request.
    ///
    /// ```swift
    /// let download = fetch(url)
    /// download.cancel()          // its resolver.onCancel handler stops the transfer
    /// ```
    public final func cancel() {
        var work: [AnyPromise] = []
        requestCancel(&work)
        while let next = work.popLast() {
            next.requestCancel(&work)
        }
    }

    /// Whether the promise has settled (fulfilled, rejected or cancelled).
    public var isSettled: Bool { fatalError("abstract") }

    /// Whether cancellation was requested while the promise was pending.
    public var isCancelRequested: Bool { fatalError("abstract") }

    // MARK: - For subclasses

    /// Marks cancellation as requested, runs cancel handlers, and queues the
    /// upstream in `work` if this was the last of its children to ask.
    @usableFromInline
    func requestCancel(_ work: inout [AnyPromise]) { fatalError("abstract") }

    /// A child asks for cancellation. Returns true when every child has now
    /// asked, so this promise should be cancelled in turn.
    @usableFromInline
    func childRequestsCancel() -> Bool { fatalError("abstract") }

    /// Calls `listener` with this promise's progress from now on.
    @usableFromInline
    func addProgressListener(_ listener: @escaping @Sendable (Double) -> Void) { fatalError("abstract") }

    /// Asks for cancellation as one child among this promise's children.
    @usableFromInline
    final func cancelAsChild() {
        if childRequestsCancel() { cancel() }
    }
}
