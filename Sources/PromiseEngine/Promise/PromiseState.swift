extension Promise {
    /// Everything mutable about a promise, guarded by its one lock.
    @usableFromInline
    struct State {
        @usableFromInline var phase: Phase
        /// The promise this one waits on (the parent of a derived promise, or
        /// the promise a `then` handler returned): where cancellation requests
        /// go. Cleared when this promise settles, which breaks the cycle
        /// parent → observer → child → parent.
        @usableFromInline var upstream: AnyPromise?
        /// Children that may ask for cancellation (derived promises, combinator
        /// slots, awaiting tasks), and how many have asked.
        @usableFromInline var children: UInt32 = 0
        @usableFromInline var cancelVotes: UInt32 = 0
        @usableFromInline var cancelRequested = false
        /// Whether anything ever looked at the outcome (for `UnhandledErrors`).
        @usableFromInline var observed = false
        /// Rarely used parts, allocated on first use.
        @usableFromInline var extras: PromiseExtras?

        @usableFromInline
        init(phase: Phase, upstream: AnyPromise?) {
            self.phase = phase
            self.upstream = upstream
        }
    }

    @usableFromInline
    enum Phase {
        /// Not settled; these observers wait.
        case pending(ObserverList<Value>)
        /// Settled; the settling thread is notifying these observers (it
        /// queued the promise in its drain). Observers added now join the list,
        /// so observers are always notified in the order they were added.
        case firing(Outcome<Value>, ObserverList<Value>)
        /// Settled and every observer notified.
        case settled(Outcome<Value>)
    }
}

/// The parts of a promise's state most promises never use: cancel handlers
/// and progress. Only touched under the promise's lock.
@usableFromInline
final class PromiseExtras {
    @usableFromInline var cancelHandlers: [@Sendable () -> Void] = []
    @usableFromInline var progress: Double = 0
    @usableFromInline var progressListeners: [@Sendable (Double) -> Void] = []
    /// Whether progress is already being forwarded from upstream.
    @usableFromInline var forwardingProgress = false
    /// For promises with more than one source of progress (`when`): starts
    /// listening to the sources when the first progress listener arrives.
    @usableFromInline var progressSource: (@Sendable () -> Void)?

    @usableFromInline
    init() {}
}

extension Promise.State {
    @usableFromInline
    var isPending: Bool {
        if case .pending = phase { return true }
        return false
    }

    /// The outcome once settled (firing or settled), else nil.
    @usableFromInline
    var outcome: Outcome<Value>? {
        switch phase {
        case .pending: return nil
        case .firing(let outcome, _), .settled(let outcome): return outcome
        }
    }

    @usableFromInline
    mutating func extrasForWriting() -> PromiseExtras {
        if let extras { return extras }
        let extras = PromiseExtras()
        self.extras = extras
        return extras
    }
}
