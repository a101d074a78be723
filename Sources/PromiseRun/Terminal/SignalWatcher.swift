import CRunnerStart
import Glibc
import Synchronization

/// Reads the runner's stopping signals, SIGINT, SIGTERM and SIGHUP (a
/// closed terminal or SSH session), also when they are sent only to its
/// pid, as CI systems do.
///
/// A handler catches them from before any thread exists (a constructor in
/// CRunnerStart; `start()`, first in main, installs it too for a binary of
/// another name) and writes each into a pipe, which a thread of their own
/// reads: a signal is never lost, ignored or fatal, whenever it comes.
/// What it does depends on the phase:
/// - until the command line is read: nothing yet (it is kept for the
///   phase that follows);
/// - other commands, a dry run: exit 128 + the signal;
/// - while a run's workflow is read and checked: the early handler (write
///   the reports, saying nothing ran) and exit;
/// - while it runs: the first asks for a graceful stop (cancel, run
///   ensures, write reports; exit 128 + the signal), a second for a stop
///   at once.
/// Children get the default dispositions back (execve, and csh_spawn).
final class SignalWatcher: Sendable {
    static let shared = SignalWatcher()

    private enum Phase {
        case starting
        case idle
        case checking(@Sendable (Int32) -> Void)
        case running(first: @Sendable (Int32) -> Void, second: @Sendable (Int32) -> Void)
    }

    private struct State {
        var phase = Phase.starting
        /// Every signal so far (while `starting`: those the next phase
        /// will act on).
        var received: [Int32] = []
    }

    private let state = Mutex(State())

    private init() {
        guard crs_install() == 0 else { return }
        var thread = pthread_t()
        let box = Unmanaged.passRetained(self)
        let made = pthread_create(
            &thread, nil,
            { argument in
                let watcher = Unmanaged<SignalWatcher>.fromOpaque(argument!).takeRetainedValue()
                // This thread takes the signals (its handler fills the pipe it
                // then reads): started from a Dispatch thread, it would have
                // inherited a mask that blocks them all, and libdispatch's main
                // thread may be gone.
                crs_unblock_in_this_thread()
                while true {
                    let signal = crs_next_signal()
                    guard signal > 0 else { return nil }
                    watcher.received(signal)
                }
            }, box.toOpaque())
        if made == 0 { pthread_detach(thread) } else { box.release() }
        // Writing to a closed pipe must not kill the runner.
        Glibc.signal(SIGPIPE, SIG_IGN)
    }

    /// Installs the handler (if the constructor did not) and starts the
    /// reader: first thing in main.
    static func start() {
        _ = shared
    }

    /// Not a run (another command, a dry run): a signal exits.
    func idle() {
        enter(.idle)
    }

    /// From now until `running`, a signal calls `handler` (which should
    /// write what must be written) on the reader's thread, then exits.
    func checking(_ handler: @escaping @Sendable (Int32) -> Void) {
        enter(.checking(handler))
    }

    /// From now on, the first signal calls `first` and any later one
    /// `second`, on the reader's thread.
    func running(first: @escaping @Sendable (Int32) -> Void, second: @escaping @Sendable (Int32) -> Void) {
        enter(.running(first: first, second: second))
    }

    /// Between the runs of `--watch`: a signal exits at once (nothing runs).
    func waiting() {
        enter(.idle)
    }

    private func enter(_ phase: Phase) {
        let early: Int32? = state.withLock { state in
            let wasStarting: Bool
            if case .starting = state.phase { wasStarting = true } else { wasStarting = false }
            state.phase = phase
            guard wasStarting, let first = state.received.first else { return nil }
            state.received.removeAll()
            return first
        }
        // A signal that came before the phase was known acts now.
        if let early { received(early) }
    }

    private func received(_ signal: Int32) {
        let action: (@Sendable (Int32) -> Void)? = state.withLock { state in
            state.received.append(signal)
            switch state.phase {
            case .starting:
                return nil
            case .idle:
                exit(128 + signal)
            case .checking(let handler):
                // Under the lock: the run cannot start meanwhile.
                handler(signal)
                exit(128 + signal)
            case .running(let first, let second):
                return state.received.count == 1 ? first : second
            }
        }
        action?(signal)
    }

    /// The signals that stop a run gracefully.
    static let caught: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// The signal's name, for messages.
    static func name(of signal: Int32) -> String {
        switch signal {
        case SIGINT: return "SIGINT"
        case SIGTERM: return "SIGTERM"
        case SIGHUP: return "SIGHUP"
        default: return "signal \(signal)"
        }
    }

    /// The first signal received, if any.
    var firstSignal: Int32? { state.withLock { $0.received.first } }
}
