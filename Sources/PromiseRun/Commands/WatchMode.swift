import CommandLineOptions
import Glibc
import PromiseEngine
import RunnerSystem
import Steps
import Synchronization
import WorkflowLanguage
import WorkflowModel
import WorkflowRun

/// `--watch`: runs the workflow (or its targets), then waits for
/// a change in a file any `sources` matches, or in the workflow file or one
/// of its includes; a change during a run stops it (ensures run) and
/// starts the next; a change between runs starts the next. Each next run
/// reads the workflow file again and checks it: with errors, they are
/// printed, nothing runs, and the watch goes on. Ctrl-C ends it, with the
/// usual exit code.
/// See docs/language.md, 'Incremental steps'.
enum WatchMode {
    static func run(_ workflow: Workflow, options: RunOptions, selection: TargetSelection?, liveOutputs: LiveOutputs? = nil) async -> Int32 {
        let signals = SignalWatcher.shared
        let style = ConsoleStyle(colored: StandardStreams.useColor(options.color, descriptor: 1))
        // What runs next (nil: the file has errors), and the last that
        // checked, whose files are watched meanwhile.
        var next: (workflow: Workflow, selection: TargetSelection?)? = (workflow, selection)
        var watched = (workflow: workflow, selection: selection)
        var code: Int32 = 0
        // What the runs generate, as their steps are resolved.
        let generated = GeneratedOutputs()
        while true {
            // Watch from before the run: a save while it runs stops it.
            // With errors, every workflow file in the file's folder is
            // watched too: an include the broken edit added may be where the
            // fix goes.
            let watcher = Self.watcher(for: watched.workflow, options: options, broken: next == nil, generated: generated)
            let change = ChangeSignal()
            var watching = watcher.count
            if let (workflow, selection) = next {
                let current = Mutex<WorkflowExecutor?>(nil)
                let running = Atomic<Bool>(true)
                detachedThread {
                    guard let path = watcher.waitForChange(stop: { change.path != nil }) else { return }
                    if running.load(ordering: .acquiring) {
                        StandardStreams.writeOutput(style.yellow("⟳ \(relative(path)) changed: stopping this run") + "\n")
                        change.fire(path)
                        current.withLock { $0 }?.interrupt()
                    } else {
                        change.fire(path)
                    }
                }
                code = await runWorkflow(
                    workflow, options: options, selection: selection,
                    onStart: { executor in current.withLock { $0 = executor } },
                    stoppedBecause: { change.path.map { "stopped: \(relative($0)) changed" } },
                    generated: generated, liveOutputs: liveOutputs)
                running.store(false, ordering: .releasing)
                if let signal = signals.firstSignal { return 128 + signal }
                // What the run stored (a foreach's sources, what depfiles
                // listed) is watched from now on, beside what was.
                if change.path == nil {
                    let refreshed = Self.watcher(for: workflow, options: options, broken: false, generated: generated)
                    watching = refreshed.count
                    detachedThread {
                        if let path = refreshed.waitForChange(stop: { change.path != nil }) { change.fire(path) }
                    }
                }
            } else {
                code = 2
                detachedThread {
                    if let path = watcher.waitForChange(stop: { change.path != nil }) { change.fire(path) }
                }
            }
            if change.path == nil {
                signals.waiting()
                StandardStreams.writeOutput(style.dim("⟳ watching \(watching) file\(watching == 1 ? "" : "s") for changes; Ctrl-C to stop") + "\n")
            }
            let changed = await change.next()
            // The file as it is now (an editor may have renamed a new one
            // over it): read, checked, run; with errors, printed, not run.
            next = Entry.load(options)
            if let next {
                watched = next
                StandardStreams.writeOutput(style.yellow("⟳ \(relative(changed)) changed: running again") + "\n")
            } else {
                StandardStreams.writeOutput(
                    style.yellow(
                        "⟳ \(relative(changed)) changed: \(relative(options.file)) has errors (above); "
                            + "nothing runs until they are fixed") + "\n")
            }
        }
        return code
    }

    /// Watches what the workflow reads: the files its `sources` match (and
    /// those the store's entries list: interpolated `sources`, what
    /// depfiles named), and always the workflow file and its includes.
    private static func watcher(for workflow: Workflow, options: RunOptions, broken: Bool, generated: GeneratedOutputs) -> ChangeWatcher {
        let here = ProcessEnvironment.currentDirectory()
        var files = [SourceGlob.absolute(options.file, from: here), SourceGlob.absolute(workflow.source.path, from: here)]
        files += Set(workflow.source.segments.map { SourceGlob.absolute($0.file.path, from: here) }).sorted()
        var patterns = workflow.sourcePatterns.map { (pattern: $0.pattern, base: SourceGlob.absolute($0.base.isEmpty ? "." : $0.base, from: here)) }
        if broken {
            let folder = String(files[0].split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/"))
            patterns.append((pattern: "**/*.workflow", base: folder.isEmpty ? "/" : folder))
        }
        let known = IncrementalStore.knownFiles(workflowDirectory: SourceGlob.absolute(workflow.directory, from: here))
        files += known.inputs
        var unique: [String] = []
        var seen: Set<String> = []
        for file in files where seen.insert(file).inserted { unique.append(file) }
        // What the build generates is its own output: a stage that writes a
        // file the next stage reads must not stop the run that wrote it
        // (literal patterns, the outputs the store knows, and the patterns
        // the runs resolve).
        let literal = workflow.generatedPatternsWithFolders.map {
            (pattern: $0.pattern, base: SourceGlob.absolute($0.base.isEmpty ? "." : $0.base, from: here))
        }
        return ChangeWatcher(patterns: patterns, files: unique, ignoring: literal, ignoredFiles: known.outputs, generated: generated)
    }

    /// Runs `body` on a detached thread of its own (no Foundation here).
    private static func detachedThread(_ body: @escaping @Sendable () -> Void) {
        final class Work: @unchecked Sendable {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        var thread = pthread_t()
        let work = Unmanaged.passRetained(Work(body))
        let made = pthread_create(
            &thread, nil,
            { argument in
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
