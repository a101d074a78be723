import CSystemShims
import Glibc

/// Starts a thread of its own (not one of Dispatch's) that runs `body`
/// and is never joined: the runner's long-lived threads (the event loop,
/// the pacer, the spawning threads) live as long as the process.
/// `name` is what `ps -L` and a debugger show (15 bytes at most: a
/// longer one is not set).
package func startDetachedThread(named name: String, _ body: @escaping @Sendable () -> Void) {
    final class Start {
        let name: String
        let body: @Sendable () -> Void
        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }
    let start = Unmanaged.passRetained(Start(name: name, body: body))
    var thread = pthread_t()
    let made = pthread_create(
        &thread, nil,
        { argument in
            let start = Unmanaged<Start>.fromOpaque(argument!).takeRetainedValue()
            csh_name_thread(start.name)
            start.body()
            return nil
        }, start.toOpaque())
    precondition(made == 0, "pthread_create: \(systemReason(made))")
    pthread_detach(thread)
}
