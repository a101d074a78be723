import CSystemShims
import Synchronization

/// `Synchronization.Mutex`, made visible to ThreadSanitizer (as
/// PromiseEngine's `Lock`): on Linux TSan does not see Mutex's lock and
/// reports races on correctly locked state.
struct Locked<State>: ~Copyable {
    private let mutex: Mutex<State>

    init(_ initial: consuming sending State) {
        mutex = Mutex(initial)
    }

    func withLock<Result>(_ body: (inout sending State) -> sending Result) -> sending Result {
        // Mutex is address-only: this is the lock's real storage.
        let address = withUnsafePointer(to: self) { UnsafeRawPointer($0) }
        return mutex.withLock { state in
            csh_annotate_acquire(address)
            defer { csh_annotate_release(address) }
            return body(&state)
        }
    }
}

// Mutex is Sendable for any state; so is this wrapper, for the same reason.
extension Locked: @unchecked Sendable {}
