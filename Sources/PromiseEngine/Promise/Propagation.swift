public import CSyncAnnotations

/// Work that must wait until the outcome being delivered on this thread has
/// reached everything that observes it inline.
///
/// Settling a promise notifies its observers, which settle theirs, and so on
/// through every inline handler before `fulfill` returns. Something done in
/// the middle of that (say, handing a freed slot to the next waiting step)
/// can run before an observer further along (say, the group that cancels
/// its other steps on that failure) has seen the outcome. `Propagation.defer`
/// puts such work after the last of them: it runs when this thread leaves
/// the outermost notification loop, or at once when the thread is not
/// notifying anything.
///
/// ```swift
/// promise.done { _ in
///     Propagation.defer { queue.handOutNextSlot() }   // after every other handler
/// }
/// ```
public enum Propagation {
    /// Runs `body` once this thread has delivered every outcome it is
    /// delivering; at once when it delivers none.
    public static func `defer`(_ body: @escaping () -> Void) {
        guard csync_propagation_current_depth() > 0 else {
            body()
            return
        }
        if let list = csync_propagation_deferred_get() {
            Unmanaged<DeferredWork>.fromOpaque(list).takeUnretainedValue().items.append(body)
        } else {
            let work = DeferredWork()
            work.items.append(body)
            csync_propagation_deferred_set(Unmanaged.passRetained(work).toOpaque())
        }
    }

    /// Whether this thread is delivering outcomes now (for tests).
    public static var isDelivering: Bool { csync_propagation_current_depth() > 0 }

    /// Marks the start of a notification loop.
    @inlinable
    static func enter() {
        _ = csync_propagation_enter()
    }

    /// Marks its end; the outermost runs what was deferred meanwhile.
    @inlinable
    static func leave() {
        if csync_propagation_leave() == 0, csync_propagation_deferred_get() != nil {
            runDeferred()
        }
    }

    /// Runs deferred work until nothing is left. It counts as a delivery
    /// itself, so work deferred by what it runs (a slot handed on, whose
    /// step ends at once and hands its slot on...) joins this loop instead
    /// of starting a nested one: a long run of hand-offs needs no stack.
    @usableFromInline
    static func runDeferred() {
        _ = csync_propagation_enter()
        while let list = csync_propagation_deferred_get() {
            csync_propagation_deferred_set(nil)
            let work = Unmanaged<DeferredWork>.fromOpaque(list).takeRetainedValue()
            for item in work.items { item() }
        }
        _ = csync_propagation_leave()
    }
}

/// One thread's deferred work (only that thread touches it).
final class DeferredWork {
    var items: [() -> Void] = []
}
