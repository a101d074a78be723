import Synchronization

/// A value that will be there later, or an error, or cancellation.
///
/// A promise settles at most once; later attempts are ignored. Handlers added
/// with `then`, `map`, `catch`, ... run inline on the thread that settles it
/// unless an `Executor` says otherwise. All methods are thread-safe: each
/// promise has one lock, never held while a handler runs.
///
/// ```swift
/// let greeting = fetchName()                  // any API giving a Promise<String>
///     .map { name in "Hello, \(name)" }
///     .timeout(.seconds(5))
/// greeting.done { print($0) }.catch { print("failed: \($0)") }
/// ```
public final class Promise<Value: Sendable>: AnyPromise, @unchecked Sendable {
    // @unchecked: all mutable state is inside `state`, a lock, or in the
    // fields below it, which are only touched while holding that lock.
    //
    // Layout (x86-64 and arm64): 16 bytes of object header, the lock's word
    // and the small state (16), `link` (8), `firstObserver` (16), the
    // outcome (9 for an Int) and the two flags: 67 bytes, which malloc
    // serves from an 80-byte chunk. A pending promise costs no more memory
    // than a NIO future (Benchmarks/README.md).

    @usableFromInline
    let state: Lock<PromiseState>

    /// The upstream and the extras. Only inside `state.withLock`.
    @usableFromInline
    @exclusivity(unchecked)
    nonisolated(unsafe) var link: PromiseLink

    /// The first observer (the usual case is exactly one); the others are in
    /// the extras. Only inside `state.withLock`.
    @usableFromInline
    @exclusivity(unchecked)
    nonisolated(unsafe) var firstObserver: Observer?

    /// The outcome once settled (a placeholder while pending). Read and
    /// written only inside `state.withLock`.
    @usableFromInline
    @exclusivity(unchecked)
    nonisolated(unsafe) var storedOutcome: Outcome<Value>

    /// Set while the promise is rejected and nothing has observed it. Kept
    /// outside the generic state so that `deinit`, which runs unspecialized,
    /// need not touch generic state unless there is an error to report.
    /// Written under the lock only. (Declared last: the two flags fit in the
    /// padding after the outcome.)
    @usableFromInline
    let unhandledRejection = Atomic<Bool>(false)

    /// Mirrors the state's `cancelRequested` (written under the lock, after
    /// it), so the hot path can read it without taking the lock.
    @usableFromInline
    let cancelRequestedFlag = Atomic<Bool>(false)

    /// A pending promise that waits on `upstream` (nil for a root promise).
    @inlinable
    init(upstream: AnyPromise?) {
        state = Lock(PromiseState())
        link = upstream.map { .upstream($0) } ?? .none
        firstObserver = nil
        storedOutcome = .cancelled
        super.init()
    }

    /// A promise that is already settled.
    public init(outcome: Outcome<Value>) {
        state = Lock(PromiseState(settled: ()))
        link = .none
        firstObserver = nil
        storedOutcome = outcome
        super.init()
        if case .rejected = outcome { unhandledRejection.store(true, ordering: .relaxed) }
    }

    /// An already fulfilled promise.
    public convenience init(value: Value) {
        self.init(outcome: .fulfilled(value))
    }

    /// An already rejected promise.
    public convenience init(error: any Error) {
        self.init(outcome: .rejected(error))
    }

    /// An already cancelled promise.
    public static func cancelled() -> Promise<Value> {
        Promise(outcome: .cancelled)
    }

    /// A pending promise and the resolver that settles it.
    ///
    /// ```swift
    /// let (promise, resolver) = Promise<Int>.pending()
    /// promise.done { print($0) }
    /// resolver.fulfill(42)                        // prints 42
    /// ```
    @inlinable
    public static func pending() -> (promise: Promise<Value>, resolver: Resolver<Value>) {
        let promise = Promise<Value>(upstream: nil)
        return (promise, Resolver(promise))
    }

    /// A promise settled by `body`, which runs at once and may keep the
    /// resolver to settle it later. A thrown error rejects the promise.
    ///
    /// ```swift
    /// let bytes = Promise<[UInt8]> { resolver in
    ///     let job = startRead(path) { bytes in resolver.fulfill(bytes) }
    ///     resolver.onCancel { job.stop() }        // cancelling the promise stops the read
    /// }
    /// ```
    public convenience init(_ body: (Resolver<Value>) throws -> Void) {
        self.init(upstream: nil)
        let resolver = Resolver(self)
        do {
            try body(resolver)
        } catch {
            resolver.reject(error)
        }
    }

    deinit {
        // Runs unspecialized: touch generic state only when there is an
        // unhandled error to report.
        guard unhandledRejection.load(ordering: .relaxed) else { return }
        let unobserved: (any Error)? = state.withLock { state in
            guard !state.observed, state.phase == .settled else { return nil }
            return storedOutcome.error
        }
        if let unobserved { UnhandledErrors.report(unobserved) }
    }

    // MARK: - Inspecting

    /// The outcome, or nil while pending. Looking counts as handling an error.
    @inlinable
    public var outcome: Outcome<Value>? {
        state.withLock { state in
            markObserved(&state)
            return state.isPending ? nil : storedOutcome
        }
    }

    public override var isSettled: Bool {
        state.withLock { !$0.isPending }
    }

    @inlinable
    public override var isCancelRequested: Bool {
        cancelRequestedFlag.load(ordering: .acquiring)
    }

    /// Records that something looked at the outcome (under the lock).
    @inlinable
    final func markObserved(_ state: inout PromiseState) {
        if !state.observed {
            state.observed = true
            unhandledRejection.store(false, ordering: .relaxed)
        }
    }

    /// The outcome without marking it observed (under the lock).
    @inlinable
    final func outcomeIfSettled(_ state: borrowing PromiseState) -> Outcome<Value>? {
        state.isPending ? nil : storedOutcome
    }

    // MARK: - Settling

    /// Settles the promise unless it already is. Queues its observers in
    /// `drain`. Returns whether this call settled it.
    @inlinable
    @discardableResult
    final func settle(_ outcome: Outcome<Value>, _ drain: inout Drain) -> Bool {
        // Letting go of the upstream here, under the lock, is safe: it has
        // settled (this promise settles from its outcome), so it no longer
        // points upstream itself and its release cascades no further.
        let settled: (notify: Bool, extras: PromiseExtras?)? = state.withLock { state in
            guard state.isPending else { return nil }
            storedOutcome = outcome
            let extras = detachExtrasUnderLock()
            if firstObserver == nil {
                state.phase = .settled
                if !state.observed, case .rejected = outcome {
                    unhandledRejection.store(true, ordering: .relaxed)
                }
                return (false, extras)
            }
            state.phase = .firing
            return (true, extras)
        }
        guard let settled else { return false }
        if let extras = settled.extras, case .fulfilled = outcome {
            // `extras` is no longer reachable from the promise: no lock needed.
            let listeners = extras.progressListeners
            for listener in listeners { listener(1) }
        }
        if settled.notify {
            drain.push(self) { promise, drain in
                unsafeDowncast(promise, to: Promise<Value>.self).fire(&drain)
            }
        }
        return true
    }

    /// Settles the promise and notifies everything that waits on it, here.
    @inlinable
    final func settleNow(_ outcome: Outcome<Value>) {
        var drain = Drain()
        settle(outcome, &drain)
        drain.run()
    }

    /// Notifies the observers queued by settling, including any added while
    /// it runs. Called from the drain only.
    @inlinable
    final func fire(_ drain: inout Drain) {
        while true {
            let batch: (Outcome<Value>, ObserverList)? = state.withLock { state in
                guard state.phase == .firing else { return nil }
                guard firstObserver != nil else {
                    state.phase = .settled
                    return nil
                }
                let observers = takeObserversUnderLock()
                // A single observer (the usual case) is the whole list: the
                // promise is settled from here on, and one added from now on
                // runs at once, after this one started, as on any settled
                // promise. With several, the ones added while they run wait
                // their turn, so all run in the order they were added.
                if case .one = observers { state.phase = .settled }
                return (storedOutcome, observers)
            }
            guard let (outcome, observers) = batch else { return }
            withUnsafePointer(to: outcome) { pointer in
                observers.notify(UnsafeRawPointer(pointer), &drain)
            }
            if case .one = observers { return }
        }
    }

    // MARK: - Observing

    /// Adds an observer: notified once, when the promise settles (at once if
    /// it has). A child may later ask for cancellation (`cancelAsChild`).
    @inlinable
    final func observe(_ observer: __owned @escaping Observer, asChild: Bool, _ drain: inout Drain) {
        let ready: Outcome<Value>? = state.withLock { state in
            markObserved(&state)
            if asChild { state.children &+= 1 }
            guard state.phase == .settled else {
                appendObserverUnderLock(observer)
                return nil
            }
            return storedOutcome
        }
        if let ready {
            withUnsafePointer(to: ready) { pointer in observer(UnsafeRawPointer(pointer), &drain) }
        }
    }

    /// `observe` from outside a drain.
    @inlinable
    final func observeNow(_ observer: __owned @escaping Observer, asChild: Bool) {
        var drain = Drain()
        observe(observer, asChild: asChild, &drain)
        drain.run()
    }

    /// `observe` with a typed closure, for paths where one more allocation
    /// does not matter.
    @inlinable
    package final func observeNow(asChild: Bool, _ body: @escaping @Sendable (Outcome<Value>) -> Void) {
        observeNow({ pointer, _ in body(Outcome<Value>.load(from: pointer)) }, asChild: asChild)
    }

    // MARK: - Cancellation

    @usableFromInline
    override final func requestCancel(_ work: inout [AnyPromise]) {
        typealias Handler = @Sendable () -> Void
        let request: (first: Handler?, more: [Handler], hooks: CombinatorHooks?, upstream: AnyPromise?)? = state.withLock { state in
            guard state.isPending, !state.cancelRequested else { return nil }
            state.cancelRequested = true
            cancelRequestedFlag.store(true, ordering: .releasing)
            if case .hooks(let hooks) = link { return (nil, [], hooks, nil) }
            guard case .extras(let extras) = link else { return (nil, [], nil, upstreamUnderLock) }
            defer {
                extras.firstCancelHandler = nil
                extras.moreCancelHandlers = []
            }
            return (extras.firstCancelHandler, extras.moreCancelHandlers, extras.hooks, extras.upstream)
        }
        guard let request else { return }
        request.hooks?.cancelInputs()
        request.first?()
        for handler in request.more { handler() }
        if let upstream = request.upstream, upstream.childRequestsCancel() {
            work.append(upstream)
        }
    }

    @usableFromInline
    override final func childRequestsCancel() -> Bool {
        state.withLock { state in
            guard state.isPending, !state.cancelRequested else { return false }
            state.cancelVotes &+= 1
            return state.cancelVotes >= state.children
        }
    }

    /// Runs `handler` when cancellation is requested (at once if it already
    /// was). Nothing runs if the promise settles first.
    @usableFromInline
    final func addCancelHandler(_ handler: @escaping @Sendable () -> Void) {
        let runNow: Bool = state.withLock { state in
            guard state.isPending else { return false }
            if state.cancelRequested { return true }
            let extras = extrasForWritingUnderLock()
            if extras.firstCancelHandler == nil {
                extras.firstCancelHandler = handler
            } else {
                extras.moreCancelHandlers.append(handler)
            }
            return false
        }
        if runNow { handler() }
    }

    // MARK: - Progress

    @usableFromInline
    override final func addProgressListener(_ listener: @escaping @Sendable (Double) -> Void) {
        let (current, source): (Double?, ProgressSource) = state.withLock { state in
            guard state.isPending else {
                if case .fulfilled = storedOutcome { return (1, .none) }
                return (nil, .none)
            }
            let extras = extrasForWritingUnderLock()
            extras.progressListeners.append(listener)
            var source = ProgressSource.none
            if !extras.forwardingProgress {
                extras.forwardingProgress = true
                if let hooks = extras.hooks {
                    source = .hooks(hooks)
                } else if let custom = extras.progressSource {
                    extras.progressSource = nil
                    source = .custom(custom)
                } else if let upstream = upstreamUnderLock {
                    source = .upstream(upstream)
                }
            }
            return (extras.progress > 0 ? extras.progress : nil, source)
        }
        if let current { listener(current) }
        switch source {
        case .none: break
        case .upstream(let upstream): upstream.addProgressListener { [self] fraction in self.reportProgress(fraction) }
        case .custom(let start): start()
        case .hooks(let hooks): hooks.startProgress()
        }
    }

    /// Points cancellation requests at a new upstream (the promise a `then`
    /// handler returned). Says whether this promise was asked to cancel in
    /// the meantime (the caller passes the request on) and whether progress
    /// is being forwarded.
    @usableFromInline
    final func replaceUpstream(with upstream: AnyPromise) -> (cancelRequested: Bool, forwardingProgress: Bool) {
        state.withLock { state in
            upstreamUnderLock = upstream
            return (state.cancelRequested, extrasUnderLock?.forwardingProgress ?? false)
        }
    }
}

extension Promise: CustomStringConvertible {
    public var description: String {
        let phase: String = state.withLock { state in
            switch outcomeIfSettled(state) {
            case nil: return "pending"
            case .fulfilled(let value)?: return "fulfilled(\(value))"
            case .rejected(let error)?: return "rejected(\(error))"
            case .cancelled?: return "cancelled"
            }
        }
        return "Promise<\(Value.self)>(\(phase))"
    }
}
