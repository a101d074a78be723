public import CSyncAnnotations
public import Synchronization

/// `Synchronization.Mutex`, made visible to ThreadSanitizer.
///
/// On Linux TSan does not see Mutex's lock (see CSyncAnnotations.h) and
/// reports races on correctly locked state. This wrapper adds acquire/release
/// annotations on the lock's address; outside TSan builds they are a
/// null check each.
@usableFromInline
package struct Lock<State>: ~Copyable {
    @usableFromInline
    let mutex: Mutex<State>

    @inlinable
    package init(_ initial: consuming sending State) {
        mutex = Mutex(initial)
    }

    @inlinable
    @inline(__always)
    package func withLock<Result>(_ body: (inout sending State) -> sending Result) -> sending Result {
        // The lock is address-only (Mutex is), so this is its real storage.
        let address = withUnsafePointer(to: self) { UnsafeRawPointer($0) }
        return mutex.withLock { state in
            sync_annotate_acquire(address)
            defer { sync_annotate_release(address) }
            return body(&state)
        }
    }
}

// Mutex is Sendable for any value; so is this wrapper, for the same reason.
extension Lock: @unchecked Sendable {}
