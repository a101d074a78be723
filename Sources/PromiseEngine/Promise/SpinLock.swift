public import Synchronization

// Only debug builds' inlinable code (`holderMark`) calls CSyncAnnotations;
// a release build uses it inside this module alone.
#if DEBUG
public import CSyncAnnotations
#else
import CSyncAnnotations
#endif

/// The lock of one promise: a word taken with one compare-and-swap and
/// given back with a plain store.
///
/// A promise's critical sections are a few dozen instructions that never run
/// user code, so a thread that finds the lock taken spins briefly, then
/// yields, then sleeps (`csync_backoff`). Debug builds mark the word with
/// the holder's thread token, so a thread that takes a lock it holds stops
/// with a message instead of spinning forever (a release build hangs, as
/// it would on any lock that is not recursive). Giving back with a store instead
/// of a second atomic read-modify-write (as a futex-based mutex must, to see
/// whether to wake a sleeper) is what makes it cheaper than
/// `Synchronization.Mutex`: a chain link takes the lock three times
/// (Benchmarks/HISTORY.md).
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
        if !word.compareExchange(expected: 0, desired: Self.holderMark, ordering: .acquiring).exchanged {
            lockContended()
        }
    }

    /// What a held lock's word says: 1, or in debug builds the holder's
    /// thread token.
    @inlinable
    @inline(__always)
    static var holderMark: UInt32 {
        #if DEBUG
        return UInt32(csync_thread_token())
        #else
        return 1
        #endif
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
        let mark = Self.holderMark
        // Only this thread ever writes its own token, so finding it there
        // means this thread holds the lock. (A word of 1 was written by
        // code built without DEBUG, which does not mark.)
        precondition(
            mark == 1 || word.load(ordering: .relaxed) != mark,
            "PromiseEngine: a promise's lock taken again by the thread that holds it")
        var round: UInt32 = 0
        while true {
            if word.load(ordering: .relaxed) == 0,
                word.compareExchange(expected: 0, desired: mark, ordering: .acquiring).exchanged
            {
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
