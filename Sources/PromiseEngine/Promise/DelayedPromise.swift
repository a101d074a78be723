/// A promise whose work starts only when somebody first asks for the
/// promise (Tomorrowland's `DelayedPromise`): describe a load up front and
/// pay for it only if it is used.
///
/// `body` runs once, on `context`, the first time `promise` is read, from
/// whichever thread reads it first; every read gives the same promise.
/// `body` is released once it has run (or with the delayed promise, if it
/// never does). A thrown error rejects the promise. `.nowOr(context)` runs
/// it on `context`: there is nothing settled to run it "now" against.
///
/// ```swift
/// let avatar = DelayedPromise<[UInt8]>(on: .queue(disk)) { resolver in
///     resolver.fulfill(readAvatar())          // not read until somebody wants it
/// }
/// if showsAvatar { avatar.promise.done { draw($0) } }   // starts the read
/// ```
public struct DelayedPromise<Value: Sendable>: Sendable, Equatable {
    private let start: DelayedStart<Value>

    /// A delayed promise whose `body` runs on `context` when `promise` is
    /// first read.
    ///
    /// ```swift
    /// let config = DelayedPromise<String> { resolver in resolver.fulfill(loadConfig()) }
    /// ```
    public init(on context: PromiseContext = .inline, _ body: @escaping @Sendable (Resolver<Value>) throws -> Void) {
        start = DelayedStart(context: context, body: body)
    }

    /// The promise; reading it the first time starts the work.
    ///
    /// ```swift
    /// let text = try await config.promise.value
    /// ```
    public var promise: Promise<Value> {
        start.promiseStartingWork()
    }

    /// Whether two values are the same delayed promise (copies of one).
    public static func == (lhs: DelayedPromise, rhs: DelayedPromise) -> Bool {
        lhs.start === rhs.start
    }
}

/// The promise of a `DelayedPromise` and the work not yet started.
final class DelayedStart<Value: Sendable>: Sendable {
    let promise = Promise<Value>(upstream: nil)
    private let work: Lock<(context: PromiseContext, body: @Sendable (Resolver<Value>) throws -> Void)?>

    init(context: PromiseContext, body: @escaping @Sendable (Resolver<Value>) throws -> Void) {
        work = Lock((context, body))
    }

    /// The promise, after starting the work if nobody did yet (exactly one
    /// caller takes it, however many threads ask at once).
    func promiseStartingWork() -> Promise<Value> {
        if let (context, body) = work.withLock({ work in work.take() }) {
            let resolver = Resolver(promise)
            context.execute {
                do { try body(resolver) } catch { resolver.reject(error) }
            }
        }
        return promise
    }
}
