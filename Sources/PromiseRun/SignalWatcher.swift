import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Catches SIGINT, SIGTERM and SIGHUP (a closed terminal or SSH session)
/// for the runner itself, also when sent only to its pid, as CI systems do.
/// The first asks for a graceful stop (cancel, run ensures, write reports;
/// exit 128 + the signal); the second asks to stop at once.
final class SignalWatcher: Sendable {
    private let sources: [DispatchSourceBox]
    private let received = Mutex<[Int32]>([])

    /// - Parameters:
    ///   - first: called once, with the signal, on the first one.
    ///   - second: called on any later one.
    init(first: @escaping @Sendable (Int32) -> Void, second: @escaping @Sendable (Int32) -> Void) {
        let queue = DispatchQueue(label: "promise-run.signals")
        var sources: [DispatchSourceBox] = []
        for signalNumber in Self.caught {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            sources.append(DispatchSourceBox(source))
        }
        self.sources = sources
        for (box, signalNumber) in zip(sources, Self.caught) {
            box.source.setEventHandler { [self] in
                let count: Int = self.received.withLock { list in
                    list.append(signalNumber)
                    return list.count
                }
                if count == 1 { first(signalNumber) } else { second(signalNumber) }
            }
            box.source.activate()
        }
        // Writing to a closed pipe must not kill the runner.
        signal(SIGPIPE, SIG_IGN)
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
    var firstSignal: Int32? { received.withLock { $0.first } }
}

/// A Dispatch source kept alive by the watcher.
final class DispatchSourceBox: @unchecked Sendable {
    // @unchecked: DispatchSource is thread-safe; `source` is never reassigned.
    let source: any DispatchSourceSignal
    init(_ source: any DispatchSourceSignal) { self.source = source }
}
