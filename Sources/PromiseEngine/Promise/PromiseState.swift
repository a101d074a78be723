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

/// The small mutable parts of a promise, in one byte: its phase, whether
/// cancellation was asked for, whether anything looked at the outcome, and
/// whether it holds an error nobody looked at.
///
/// The promise keeps the byte in an atomic (`Promise.flagWord`) that only
/// a holder of its lock writes, so two of the bits can be read without the
/// lock: `cancelRequested` (the hot path asks it of every promise it
/// settles) and `unhandledRejection` (`deinit`, which must not touch
/// generic state without cause). Under the lock, `withLock` hands the byte
/// out as this value and stores it back if it changed.
@usableFromInline
struct PromiseState {
    @usableFromInline var bits: UInt8

    @inlinable
    init(bits: UInt8) {
        self.bits = bits
    }

    @usableFromInline static var phaseMask: UInt8 { 0b0000_0011 }
    @usableFromInline static var cancelRequestedBit: UInt8 { 0b0000_0100 }
    @usableFromInline static var observedBit: UInt8 { 0b0000_1000 }
    @usableFromInline static var unhandledRejectionBit: UInt8 { 0b0001_0000 }

    /// A settled promise's first state.
    @inlinable
    static var settled: PromiseState { PromiseState(bits: Phase.settled.rawValue) }

    @inlinable
    var phase: Phase {
        get { Phase(rawValue: bits & Self.phaseMask).unsafelyUnwrapped }
        set { bits = (bits & ~Self.phaseMask) | newValue.rawValue }
    }

    @inlinable
    var isPending: Bool { bits & Self.phaseMask == Phase.pending.rawValue }

    @inlinable
    var cancelRequested: Bool {
        get { bits & Self.cancelRequestedBit != 0 }
        set { set(Self.cancelRequestedBit, newValue) }
    }

    /// Whether anything ever looked at the outcome (for `UnhandledErrors`).
    @inlinable
    var observed: Bool {
        get { bits & Self.observedBit != 0 }
        set { set(Self.observedBit, newValue) }
    }

    /// Rejected, settled, and nothing looked: `deinit` reports the error.
    @inlinable
    var unhandledRejection: Bool {
        get { bits & Self.unhandledRejectionBit != 0 }
        set { set(Self.unhandledRejectionBit, newValue) }
    }

    @inlinable
    mutating func set(_ bit: UInt8, _ on: Bool) {
        bits = on ? bits | bit : bits & ~bit
    }
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
    /// The children that may still ask for cancellation, once there are
    /// more than the promise's 16-bit count holds (`Promise.childCount`
    /// then reads `Int16.min`).
    @usableFromInline var childCount = 0

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

    /// On fulfilling: tells the progress listeners the work is done, unless
    /// they last heard 1 already (a derived promise hears its upstream's
    /// completion as progress, then completes itself).
    @usableFromInline
    func reportCompleted() {
        guard progress < 1 else { return }
        for listener in progressListeners { listener(1) }
    }
}
