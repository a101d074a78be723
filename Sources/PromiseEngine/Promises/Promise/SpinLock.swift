import CSyncAnnotations
import Synchronization

/// The lock of one promise: a word taken with one compare-and-swap and
/// given back with a plain store.
///
/// A promise's critical sections are a few dozen instructions that never run
/// user code, so a thread that finds the lock taken spins briefly, then
/// yields, then sleeps (`csync_backoff`). Giving back with a store instead
/// of a second atomic read-modify-write (as a futex-based mutex must, to see
/// whether to wake a sleeper) is what makes it cheaper than
/// `Synchronization.Mutex`: a chain link takes the lock three times
/// (Benchmarks/README.md).
@usableFromInline
struct SpinLock: ~Copyable, @unchecked Sendable {
    // @unchecked: an atomic word.
    @usableFromInline
    let word = Atomic<UInt32>(0)

    @inlinable
    init() {}

    @inlinable
    @inline(__always)
    func lock() {
        if !word.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged {
            lockContended()
        }
    }

    @inlinable
    @inline(__always)
    func unlock() {
        word.store(0, ordering: .releasing)
    }

    /// Waits for the holder: spins, then backs off, re-trying whenever the
    /// word reads free.
    @usableFromInline
    @inline(never)
    func lockContended() {
        var round: UInt32 = 0
        while true {
            if word.load(ordering: .relaxed) == 0,
               word.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged {
                return
            }
            if round < 64 {
                csync_spin_hint()
            } else {
                csync_backoff(round - 64)
            }
            round &+= 1
        }
    }
}
