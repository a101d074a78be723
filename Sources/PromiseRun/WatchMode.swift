import Glibc
import PromiseEngine
import WorkflowEngine
import Steps
import Synchronization

/// `--watch` (spec §13): runs the workflow (or its targets), then waits for
/// a change in a file any `sources` matches (with none: the workflow file);
/// a change during a run stops it (ensures run) and starts the next; a
/// change between runs starts the next. Ctrl-C ends it, with the usual exit
/// code.
enum WatchMode {
    static func run(_ workflow: Workflow, options: RunOptions, selection: TargetSelection?) async -> Int32 {
        let signals = SignalWatcher.shared
        let style = ConsoleStyle(colored: StandardStreams.useColor(options.color, descriptor: 1))
        var files = [SourceGlob.absolute(workflow.source.path, from: ProcessEnvironment.currentDirectory())]
        files += Set(workflow.source.segments.map { SourceGlob.absolute($0.file.path, from: ProcessEnvironment.currentDirectory()) }).sorted()
        let here = ProcessEnvironment.currentDirectory()
        let patterns = workflow.sourcePatterns.map { (pattern: $0.pattern, base: SourceGlob.absolute($0.base.isEmpty ? "." : $0.base, from: here)) }
        var code: Int32 = 0
        while true {
            // Watch from before the run: a save while it runs stops it.
            let watcher = ChangeWatcher(patterns: patterns, files: patterns.isEmpty ? files : [])
            let current = Mutex<WorkflowExecutor?>(nil)
            let change = ChangeSignal()
            let running = Atomic<Bool>(true)
            detachedThread {
                guard let path = watcher.waitForChange(stop: { false }) else { return }
                if running.load(ordering: .acquiring) {
                    StandardStreams.writeOutput(style.yellow("⟳ \(relative(path)) changed: stopping this run") + "\n")
                    change.fire(path)
                    current.withLock { $0 }?.interrupt()
                } else {
                    change.fire(path)
                }
            }
            code = await runWorkflow(workflow, options: options, selection: selection,
                                     onStart: { executor in current.withLock { $0 = executor } },
                                     stoppedBecause: { change.path.map { "stopped: \(relative($0)) changed" } })
            running.store(false, ordering: .releasing)
            if let signal = signals.firstSignal { return 128 + signal }
            if change.path == nil {
                signals.waiting()
                StandardStreams.writeOutput(style.dim("⟳ watching \(watcher.count) file\(watcher.count == 1 ? "" : "s") for changes; Ctrl-C to stop") + "\n")
            }
            let next = await change.next()
            StandardStreams.writeOutput(style.yellow("⟳ \(relative(next)) changed: running again") + "\n")
        }
        return code
    }

    /// Runs `body` on a detached thread of its own (no Foundation here).
    private static func detachedThread(_ body: @escaping @Sendable () -> Void) {
        final class Work: @unchecked Sendable {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        var thread = pthread_t()
        let work = Unmanaged.passRetained(Work(body))
        let made = pthread_create(&thread, nil, { argument in
            Unmanaged<Work>.fromOpaque(argument!).takeRetainedValue().body()
            return nil
        }, work.toOpaque())
        if made == 0 { pthread_detach(thread) } else { work.release() }
    }

    private static func relative(_ path: String) -> String {
        let folder = ProcessEnvironment.currentDirectory() + "/"
        return path.hasPrefix(folder) ? String(path.dropFirst(folder.count)) : path
    }
}

/// The first change a watcher saw, handed from its thread to the run loop.
private final class ChangeSignal: Sendable {
    private let state = Mutex<(path: String?, waiter: CheckedContinuation<String, Never>?)>((nil, nil))

    var path: String? { state.withLock { $0.path } }

    func fire(_ path: String) {
        let waiter: CheckedContinuation<String, Never>? = state.withLock { state in
            guard state.path == nil else { return nil }
            state.path = path
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: path)
    }

    func next() async -> String {
        await withCheckedContinuation { continuation in
            let ready: String? = state.withLock { state in
                if let path = state.path { return path }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
