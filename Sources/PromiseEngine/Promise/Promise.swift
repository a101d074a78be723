public import Synchronization

/// A value that will be there later, or an error, or cancellation.
///
/// A promise settles at most once; later attempts are ignored. Handlers added
/// with `then`, `map`, `catch`, ... run inline on the thread that settles it
/// unless an `PromiseContext` says otherwise. All methods are thread-safe: each
/// promise has one lock, never held while a handler runs.
///
/// ```swift
/// let greeting = fetchName()                  // any API giving a Promise<String>
///     .map { name in "Hello, \(name)" }
///     .timeout(.seconds(5))
/// greeting.done { print($0) }.catch { print("failed: \($0)") }
/// ```
public final class Promise<Value: Sendable>: AnyPromise, @unchecked Sendable {
    // @unchecked: all mutable state is in the fields below, each touched
    // only while holding `lock` (`flagWord` is also read without it, as an
    // atomic).
    //
    // Layout (x86-64 and arm64), for a `Promise<Int>`: 16 bytes of object
    // header, `link` (8), `firstObserver` (16), the outcome (9: the Int and
    // its case), then the small parts packed into the outcome's last word:
    // the state byte, the 16-bit child count and the lock's 4-byte word.
    // 56 bytes, which malloc serves from a 64-byte chunk (a NIO future asks
    // for 72 and gets 80). The small parts come last so that nothing pads
    // after the 9-byte outcome; their offsets then depend on `Value`,
    // which specialized code folds to constants and unspecialized code
    // reads from the class's metadata (Benchmarks/README.md).

    /// The upstream and the extras. Only under the lock.
    @usableFromInline
    @exclusivity(unchecked)
    nonisolated(unsafe) var link: PromiseLink

    /// The first observer (the usual case is exactly one); the others are in
    /// the extras. Only under the lock.
    @usableFromInline
    @exclusivity(unchecked)
    nonisolated(unsafe) var firstObserver: Observer?

    /// The outcome once settled (a placeholder while pending). Written only
    /// under the lock; read without it once settled (it no longer changes).
    @usableFromInline
    @exclusivity(unchecked)
    nonisolated(unsafe) var storedOutcome: Outcome<Value>

    /// The state byte (`PromiseState`). Written only under the lock; its
    /// `cancelRequested` and `unhandledRejection` bits are also read without.
    @usableFromInline
    let flagWord: Atomic<UInt8>

    /// The children that may still ask for cancellation: one more for each
    /// child registered, one fewer for each that asked. At zero or below,
    /// every child has asked. `Int16.min` when the count lives in the
    /// extras (beyond 16 bits). Only under the lock.
    @usableFromInline
    @exclusivity(unchecked)
    nonisolated(unsafe) var childCount: Int16

    @usableFromInline
    let lock = SpinLock()

    /// A pending promise that waits on `upstream` (nil for a root promise).
    @inlinable
    init(upstream: AnyPromise?) {
        link = upstream.map { .upstream($0) } ?? .none
        firstObserver = nil
        storedOutcome = .cancelled
        flagWord = Atomic(Phase.pending.rawValue)
        childCount = 0
        super.init()
    }

    /// A promise that is already settled.
    public init(outcome: Outcome<Value>) {
        var state = PromiseState.settled
        if case .rejected = outcome { state.unhandledRejection = true }
        link = .none
        firstObserver = nil
        storedOutcome = outcome
        flagWord = Atomic(state.bits)
        childCount = 0
        super.init()
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
        guard PromiseState(bits: flagWord.load(ordering: .relaxed)).unhandledRejection else { return }
        let unobserved: (any Error)? = withLock { state in
            guard !state.observed, state.phase == .settled else { return nil }
            return storedOutcome.error
        }
        if let unobserved { UnhandledErrors.report(unobserved) }
    }

    /// Runs `body` with the small state, holding the promise's lock, and
    /// stores the state back if `body` changed it. The other guarded fields
    /// (`link`, `firstObserver`, `storedOutcome`, `childCount`) are touched
    /// only inside `body`.
    @inlinable
    @inline(__always)
    final func withLock<Result>(_ body: (inout PromiseState) -> Result) -> Result {
        lock.lock()
        let before = flagWord.load(ordering: .relaxed)
        var state = PromiseState(bits: before)
        defer {
            if state.bits != before { flagWord.store(state.bits, ordering: .releasing) }
            lock.unlock()
        }
        return body(&state)
    }

    /// The state byte, under the lock (a plain load: only lock holders write it).
    @inlinable
    @inline(__always)
    final var stateUnderLock: PromiseState {
        PromiseState(bits: flagWord.load(ordering: .relaxed))
    }

    /// Stores the state byte, under the lock.
    @inlinable
    @inline(__always)
    final func storeUnderLock(_ state: PromiseState) {
        flagWord.store(state.bits, ordering: .releasing)
    }

    // MARK: - Inspecting

    /// The outcome, or nil while pending. Looking counts as handling an error.
    @inlinable
    public var outcome: Outcome<Value>? {
        withLock { state in
            markObserved(&state)
            return state.isPending ? nil : storedOutcome
        }
    }

    public override var isSettled: Bool {
        withLock { !$0.isPending }
    }

    @inlinable
    public override var isCancelRequested: Bool {
        PromiseState(bits: flagWord.load(ordering: .acquiring)).cancelRequested
    }

    /// Records that something looked at the outcome (under the lock).
    @inlinable
    final func markObserved(_ state: inout PromiseState) {
        state.observed = true
        state.unhandledRejection = false
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
    final func settle(_ outcome: __owned Outcome<Value>, _ drain: inout Drain) -> Bool {
        // Written without `withLock` and with the fields moved, not copied:
        // this is the path every link of a chain takes, and each retain or
        // release here is an atomic instruction (Benchmarks/HISTORY.md).
        lock.lock()
        var state = stateUnderLock
        guard state.isPending else {
            lock.unlock()
            return false
        }
        storedOutcome = outcome
        // The upstream, a combinator's hooks and the extras are over (the
        // upstream has settled, and cancel handlers and progress end here):
        // taken out now, let go after unlocking. Observers waiting beyond
        // the first stay, in fresh extras, for `fire`.
        var detached = PromiseLink.none
        swap(&detached, &link)
        if case .extras(let extras) = detached, !extras.moreObservers.isEmpty {
            link = .extras(extras.takingObservers())
        }
        let notify = firstObserver != nil
        if notify {
            state.phase = .firing
        } else {
            state.phase = .settled
            if !state.observed, case .rejected = storedOutcome {
                state.unhandledRejection = true
            }
        }
        storeUnderLock(state)
        var fulfilled = false
        if case .fulfilled = storedOutcome { fulfilled = true }
        lock.unlock()
        if case .extras(let extras) = detached, fulfilled {
            // No longer reachable from the promise: no lock needed.
            extras.reportCompleted()
        }
        if notify {
            drain.push(self) { promise, drain in
                unsafeDowncast(promise, to: Promise<Value>.self).fire(&drain)
            }
        }
        return true
    }

    /// Settles the promise and notifies everything that waits on it, here.
    @inlinable
    final func settleNow(_ outcome: __owned Outcome<Value>) {
        var drain = Drain()
        settle(outcome, &drain)
        drain.run()
    }

    /// Notifies the observers queued by settling, including any added while
    /// they run. Called from the drain only, on the thread that settled the
    /// promise.
    @inlinable
    final func fire(_ drain: inout Drain) {
        while true {
            lock.lock()
            var state = stateUnderLock
            guard state.phase == .firing else {
                lock.unlock()
                return
            }
            state.phase = .settled
            guard let first = firstObserver.take() else {
                storeUnderLock(state)
                lock.unlock()
                return
            }
            guard let extras = extrasUnderLock, !extras.moreObservers.isEmpty else {
                // A single observer (the usual case) is the whole list: the
                // promise is settled from here on, and one added from now on
                // runs at once, after this one started, as on any settled
                // promise.
                storeUnderLock(state)
                lock.unlock()
                notify(first, &drain)
                return
            }
            // With several, the ones added while they run wait their turn,
            // so all run in the order they were added.
            var more: [Observer] = []
            swap(&more, &extras.moreObservers)
            lock.unlock()
            let outcome = storedOutcome
            withUnsafePointer(to: outcome) { pointer in
                let raw = UnsafeRawPointer(pointer)
                first(raw, &drain)
                for index in more.indices { more[index](raw, &drain) }
            }
        }
    }

    /// Calls `observer` with the outcome. Only once settled: the outcome no
    /// longer changes, so it is read without the lock.
    @inlinable
    @inline(__always)
    final func notify(_ observer: Observer, _ drain: inout Drain) {
        let outcome = storedOutcome
        withUnsafePointer(to: outcome) { pointer in observer(UnsafeRawPointer(pointer), &drain) }
    }

    // MARK: - Observing

    /// Adds an observer: notified once, when the promise settles (at once if
    /// it has). A child may later ask for cancellation (`cancelAsChild`).
    @inlinable
    final func observe(_ observer: consuming @escaping Observer, asChild: Bool, _ drain: inout Drain) {
        // The observer is either kept or called, never both, so it moves
        // into the promise without an extra retain and release of its
        // context.
        lock.lock()
        let state = registerUnderLock(asChild: asChild)
        guard state.phase == .settled else {
            appendObserverUnderLock(observer)
            lock.unlock()
            return
        }
        let ready = storedOutcome
        lock.unlock()
        withUnsafePointer(to: ready) { pointer in observer(UnsafeRawPointer(pointer), &drain) }
    }

    /// `observe` from outside a drain.
    @inlinable
    final func observeNow(_ observer: consuming @escaping Observer, asChild: Bool) {
        var drain = Drain()
        observe(observer, asChild: asChild, &drain)
        drain.run()
    }

    /// Records an observer: the outcome counts as looked at, and a child of
    /// a pending promise counts toward cancellation votes (under the lock).
    /// Returns the state.
    @inlinable
    @inline(__always)
    final func registerUnderLock(asChild: Bool) -> PromiseState {
        var state = stateUnderLock
        if !state.observed {
            markObserved(&state)
            storeUnderLock(state)
        }
        if asChild, state.isPending {
            if childCount != .max, childCount != .min {
                childCount &+= 1
            } else {
                _ = spillChildCount(adding: 1)
            }
        }
        return state
    }

    /// Adds `delta` to the child count kept in the extras, moving it there
    /// first (under the lock). Returns the new count. Past 32,767 children
    /// waiting at once: rare, so the extras may pay for it.
    @usableFromInline
    final func spillChildCount(adding delta: Int) -> Int {
        let extras = extrasForWritingUnderLock()
        if childCount != .min {
            extras.childCount = Int(childCount)
            childCount = .min
        }
        extras.childCount += delta
        return extras.childCount
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
        let request: (first: Handler?, more: [Handler], hooks: CombinatorHooks?, upstream: AnyPromise?)? = withLock { state in
            guard state.isPending, !state.cancelRequested else { return nil }
            state.cancelRequested = true
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
        withLock { state in
            guard state.isPending, !state.cancelRequested else { return false }
            if childCount > Int16.min + 1 {
                childCount -= 1
                return childCount <= 0
            }
            return spillChildCount(adding: -1) <= 0
        }
    }

    /// Runs `handler` when cancellation is requested (at once if it already
    /// was). Nothing runs if the promise settles first.
    @usableFromInline
    final func addCancelHandler(_ handler: @escaping @Sendable () -> Void) {
        let runNow: Bool = withLock { state in
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
        let (current, source): (Double?, ProgressSource) = withLock { state in
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
        // The old upstream is let go after unlocking: releasing it may free
        // it, and its value with it, which runs code of the user's.
        // A promise that has settled keeps no upstream (it would keep the
        // other promise alive for nothing).
        let (previous, cancelRequested, forwardingProgress) = withLock { state in
            guard state.isPending else { return (nil as AnyPromise?, false, false) }
            let previous = upstreamUnderLock
            upstreamUnderLock = upstream
            return (previous, state.cancelRequested, extrasUnderLock?.forwardingProgress ?? false)
        }
        withExtendedLifetime(previous) {}
        return (cancelRequested, forwardingProgress)
    }
}

extension Promise: CustomStringConvertible {
    public var description: String {
        // Copied under the lock, described after: a value's description is
        // the user's code, and may look at this promise.
        let outcome = withLock { state in outcomeIfSettled(state) }
        let phase: String
        switch outcome {
        case nil: phase = "pending"
        case .fulfilled(let value)?: phase = "fulfilled(\(value))"
        case .rejected(let error)?: phase = "rejected(\(error))"
        case .cancelled?: phase = "cancelled"
        }
        return "Promise<\(Value.self)>(\(phase))"
    }
}
