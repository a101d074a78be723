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

/// The small mutable parts of a promise, guarded by its one lock.
/// Deliberately not generic (a generic class's `deinit` runs unspecialized,
/// and every generic type in its stored properties costs a runtime metadata
/// lookup there) and without pointers: its alignment is 4, so it sits right
/// after the lock's 4-byte word with no padding. The pointer-sized parts
/// (observers, upstream, extras) and the outcome are fields of the promise,
/// guarded by the same lock.
@usableFromInline
struct PromiseState {
    /// Children that may ask for cancellation (derived promises, combinator
    /// slots, awaiting tasks), and how many have asked.
    @usableFromInline var children: UInt32 = 0
    @usableFromInline var cancelVotes: UInt32 = 0
    @usableFromInline var phase = Phase.pending
    @usableFromInline var cancelRequested = false
    /// Whether anything ever looked at the outcome (for `UnhandledErrors`).
    @usableFromInline var observed = false

    @inlinable
    init() {}

    @inlinable
    init(settled: Void) {
        phase = .settled
    }

    @inlinable
    var isPending: Bool { phase == .pending }
}

/// What a combinator's result asks of the combinator behind it: to cancel
/// its inputs (when the result is asked to cancel), and to start reporting
/// their progress (when the first progress listener arrives). A class, not
/// a protocol, so that a reference to one is a single pointer (it shares
/// `PromiseLink` with the upstream and the extras).
@usableFromInline
class CombinatorHooks: @unchecked Sendable {
    // @unchecked: no state here; subclasses are Sendable on their own terms.
    init() {}
    func cancelInputs() {}
    func startProgress() {}
}

/// What a promise points at besides its observers, in one pointer: nothing,
/// the promise it waits on (its upstream, where cancellation requests go),
/// or extras that hold the upstream with the rarely used parts, or a
/// combinator's hooks. Class payloads only: the enum fits in a pointer's
/// spare bits.
@usableFromInline
enum PromiseLink {
    case none
    case upstream(AnyPromise)
    case extras(PromiseExtras)
    /// A combinator's result: the combinator answers cancellation and
    /// progress (until extras are needed; they then hold it).
    case hooks(CombinatorHooks)
}

/// The parts of a promise's state most promises never use: a second
/// observer and more, cancel handlers and progress. Only touched under the
/// promise's lock.
@usableFromInline
final class PromiseExtras {
    /// The upstream, once extras exist (see `PromiseLink`).
    @usableFromInline var upstream: AnyPromise?
    /// Observers after the first, in the order they were added.
    @usableFromInline var moreObservers: [Observer] = []
    /// The first cancel handler inline, the rest in an array.
    @usableFromInline var firstCancelHandler: (@Sendable () -> Void)?
    @usableFromInline var moreCancelHandlers: [@Sendable () -> Void] = []
    @usableFromInline var progress: Double = 0
    @usableFromInline var progressListeners: [@Sendable (Double) -> Void] = []
    /// Whether progress is already being forwarded from upstream.
    @usableFromInline var forwardingProgress = false
    /// For promises with more than one source of progress (`when`): starts
    /// listening to the sources when the first progress listener arrives.
    @usableFromInline var progressSource: (@Sendable () -> Void)?
    /// A combinator that answers cancellation and progress itself (one
    /// reference instead of two closures).
    @usableFromInline var hooks: CombinatorHooks?

    @inlinable
    init() {}

    /// On settling, while observers beyond the first wait: fresh extras
    /// holding just them (everything else in these is over).
    @usableFromInline
    func takingObservers() -> PromiseExtras {
        let kept = PromiseExtras()
        swap(&kept.moreObservers, &moreObservers)
        return kept
    }

    /// On fulfilling: tells the progress listeners the work is done.
    @usableFromInline
    func reportCompleted() {
        for listener in progressListeners { listener(1) }
    }
}
