import Synchronization

/// A value that will be there later, or an error, or cancellation.
///
/// A promise settles at most once; later attempts are ignored. Handlers added
/// with `then`, `map`, `catch`, ... run inline on the thread that settles it
/// unless an `Executor` says otherwise. All methods are thread-safe: each
/// promise has one lock, never held while a handler runs.
public class Promise<Value: Sendable>: AnyPromise, @unchecked Sendable {
    // @unchecked: all mutable state is inside `state`, a Mutex.

    @usableFromInline
    let state: Lock<State>

    /// A pending promise that waits on `upstream` (nil for a root promise).
    @usableFromInline
    init(upstream: AnyPromise?) {
        state = Lock(State(phase: .pending(ObserverList()), upstream: upstream))
        super.init()
    }

    /// A promise that is already settled.
    public init(outcome: Outcome<Value>) {
        state = Lock(State(phase: .settled(outcome), upstream: nil))
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
    public static func pending() -> (promise: Promise<Value>, resolver: Resolver<Value>) {
        let promise = Promise<Value>(upstream: nil)
        return (promise, Resolver(promise))
    }

    /// A promise settled by `body`, which runs at once and may keep the
    /// resolver to settle it later. A thrown error rejects the promise.
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
        let unobserved: (any Error)? = state.withLock { state in
            if !state.observed, case .settled(.rejected(let error)) = state.phase { return error }
            return nil
        }
        if let unobserved { UnhandledErrors.report(unobserved) }
    }

    // MARK: - Inspecting

    /// The outcome, or nil while pending. Looking counts as handling an error.
    public var outcome: Outcome<Value>? {
        state.withLock { state in
            state.observed = true
            return state.outcome
        }
    }

    public override var isSettled: Bool {
        state.withLock { !$0.isPending }
    }

    public override var isCancelRequested: Bool {
        state.withLock { $0.cancelRequested }
    }

    // MARK: - Settling

    /// Settles the promise unless it already is. Queues its observers in
    /// `drain`. Returns whether this call settled it.
    @usableFromInline
    @discardableResult
    final func settle(_ outcome: Outcome<Value>, _ drain: inout Drain) -> Bool {
        let settled: (notify: Bool, upstream: AnyPromise?, extras: PromiseExtras?)? = state.withLock { state in
            guard case .pending(let observers) = state.phase else { return nil }
            let upstream = state.upstream
            let extras = state.extras
            state.upstream = nil
            state.extras = nil
            if observers.isEmpty {
                state.phase = .settled(outcome)
                return (false, upstream, extras)
            }
            state.phase = .firing(outcome, observers)
            return (true, upstream, extras)
        }
        guard let settled else { return false }
        if let extras = settled.extras, case .fulfilled = outcome {
            // Listeners were copied out under the lock only to be called here;
            // `extras` is no longer reachable from the promise.
            let listeners = extras.progressListeners
            for listener in listeners { listener(1) }
        }
        if settled.notify { drain.push(self) }
        return true
    }

    /// Settles the promise and notifies everything that waits on it, here.
    @usableFromInline
    final func settleNow(_ outcome: Outcome<Value>) {
        var drain = Drain()
        settle(outcome, &drain)
        drain.run()
    }

    @usableFromInline
    override final func fire(_ drain: inout Drain) {
        while true {
            let batch: (Outcome<Value>, ObserverList<Value>)? = state.withLock { state in
                guard case .firing(let outcome, let observers) = state.phase else { return nil }
                if observers.isEmpty {
                    state.phase = .settled(outcome)
                    return nil
                }
                state.phase = .firing(outcome, ObserverList())
                return (outcome, observers)
            }
            guard let (outcome, observers) = batch else { return }
            observers.notify(outcome, &drain)
        }
    }

    // MARK: - Observing

    /// Adds an observer: notified once, when the promise settles (at once if
    /// it has). A child may later ask for cancellation (`cancelAsChild`).
    @usableFromInline
    final func observe(_ observer: any PromiseObserver<Value>, asChild: Bool, _ drain: inout Drain) {
        let ready: Outcome<Value>? = state.withLock { state in
            state.observed = true
            if asChild { state.children &+= 1 }
            switch state.phase {
            case .pending(var observers):
                state.phase = .settled(.cancelled)  // drop the reference so `append` does not copy
                observers.append(observer)
                state.phase = .pending(observers)
                return nil
            case .firing(let outcome, var observers):
                state.phase = .settled(.cancelled)
                observers.append(observer)
                state.phase = .firing(outcome, observers)
                return nil
            case .settled(let outcome):
                return outcome
            }
        }
        if let ready { observer.receive(ready, &drain) }
    }

    /// `observe` from outside a drain.
    @usableFromInline
    final func observeNow(_ observer: any PromiseObserver<Value>, asChild: Bool) {
        var drain = Drain()
        observe(observer, asChild: asChild, &drain)
        drain.run()
    }

    // MARK: - Cancellation

    @usableFromInline
    override final func requestCancel(_ work: inout [AnyPromise]) {
        let request: (handlers: [@Sendable () -> Void], upstream: AnyPromise?)? = state.withLock { state in
            guard state.isPending, !state.cancelRequested else { return nil }
            state.cancelRequested = true
            let handlers = state.extras?.cancelHandlers ?? []
            state.extras?.cancelHandlers = []
            return (handlers, state.upstream)
        }
        guard let request else { return }
        for handler in request.handlers { handler() }
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
            state.extrasForWriting().cancelHandlers.append(handler)
            return false
        }
        if runNow { handler() }
    }

    // MARK: - Progress

    @usableFromInline
    override final func addProgressListener(_ listener: @escaping @Sendable (Double) -> Void) {
        let (current, source): (Double?, ProgressSource) = state.withLock { state in
            guard state.isPending else {
                if case .fulfilled? = state.outcome { return (1, .none) }
                return (nil, .none)
            }
            let extras = state.extrasForWriting()
            extras.progressListeners.append(listener)
            var source = ProgressSource.none
            if !extras.forwardingProgress {
                extras.forwardingProgress = true
                if let custom = extras.progressSource {
                    extras.progressSource = nil
                    source = .custom(custom)
                } else if let upstream = state.upstream {
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
        }
    }

    /// Points cancellation requests at a new upstream (the promise a `then`
    /// handler returned). Returns false if this promise was cancelled in the
    /// meantime, so the caller should pass the request on.
    @usableFromInline
    final func replaceUpstream(with upstream: AnyPromise) -> (cancelRequested: Bool, forwardingProgress: Bool) {
        state.withLock { state in
            state.upstream = upstream
            return (state.cancelRequested, state.extras?.forwardingProgress ?? false)
        }
    }
}

extension Promise: CustomStringConvertible {
    public var description: String {
        let phase: String = state.withLock { state in
            switch state.outcome {
            case nil: return "pending"
            case .fulfilled(let value)?: return "fulfilled(\(value))"
            case .rejected(let error)?: return "rejected(\(error))"
            case .cancelled?: return "cancelled"
            }
        }
        return "Promise<\(Value.self)>(\(phase))"
    }
}
