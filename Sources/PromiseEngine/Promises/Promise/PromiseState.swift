/// Where a promise is in its life.
@usableFromInline
enum Phase: UInt8 {
    /// Not settled; the observers wait.
    case pending
    /// Settled; the settling thread is notifying the observers (it queued the
    /// promise in its drain). Observers added now join the list, so observers
    /// are always notified in the order they were added.
    case firing
    /// Settled and every observer notified.
    case settled
}

/// Everything mutable about a promise except its outcome, guarded by its one
/// lock. Deliberately not generic: a generic class's `deinit` runs
/// unspecialized, and every generic type in its stored properties costs a
/// runtime metadata lookup there. Only the outcome depends on the value type.
@usableFromInline
struct PromiseState {
    // Field order packs the state into 48 bytes (the one-byte fields fill
    // the gap after the 17-byte observer list), so that a promise object
    // fits a 96-byte allocation.
    @usableFromInline var observers = ObserverList()
    @usableFromInline var phase = Phase.pending
    @usableFromInline var cancelRequested = false
    /// Whether anything ever looked at the outcome (for `UnhandledErrors`).
    @usableFromInline var observed = false
    /// Children that may ask for cancellation (derived promises, combinator
    /// slots, awaiting tasks), and how many have asked.
    @usableFromInline var children: UInt32 = 0
    @usableFromInline var cancelVotes: UInt32 = 0
    /// The promise this one waits on (the parent of a derived promise, or
    /// the promise a `then` handler returned): where cancellation requests
    /// go. Cleared when this promise settles, which breaks the cycle
    /// parent → observer → child → parent.
    @usableFromInline var upstream: AnyPromise?
    /// Rarely used parts, allocated on first use.
    @usableFromInline var extras: PromiseExtras?

    @inlinable
    init(upstream: AnyPromise?) {
        self.upstream = upstream
    }

    @inlinable
    init(settled: Void) {
        phase = .settled
    }

    @inlinable
    var isPending: Bool { phase == .pending }

    @inlinable
    mutating func extrasForWriting() -> PromiseExtras {
        if let extras { return extras }
        let extras = PromiseExtras()
        self.extras = extras
        return extras
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

    @inlinable
    init() {}
}
