import CommandLineOptions
import Glibc
import RunnerSystem
import WorkflowModel
import WorkflowRun

/// A run that finds every step up to date leaves a record of what it
/// looked at (`NoOpRecord`); the next identical invocation `stat`s those
/// paths and, when all still look the same, shows the same no-op without
/// reading the workflow (docs/language.md, 'Incremental steps: sources and generates'). Only an
/// ordinary run: `--dry-run`, `--watch`, `--force`, `-v`, `-vv`, reports,
/// `--events`, `--metrics-listen`, GitHub Actions' annotations and step
/// summary, and a workflow from standard input always take the full path.
enum NoOpRun {
    /// The invocation: where its record lives and the key it must hold.
    struct Invocation: Sendable {
        var recordPath: String
        var key: String
        var file: String
        /// The workflow's folder (absolute).
        var directory: String
    }

    /// The invocation of `options` (run with `arguments`), nil when it is
    /// not one a record may stand for.
    static func invocation(arguments: [String], options: RunOptions) -> Invocation? {
        guard options.file != "-", !options.dryRun, !options.watch, !options.force, options.reports.isEmpty,
            options.events == nil, options.metricsListen == nil, options.verbosity != .verbose, !options.showsWire,
            ProcessEnvironment.value("GITHUB_ACTIONS") != "true",
            (ProcessEnvironment.value("GITHUB_STEP_SUMMARY") ?? "").isEmpty
        else { return nil }
        let here = ProcessEnvironment.currentDirectory()
        let directory = Paths.parent(of: Paths.absolute(options.file, from: here))
        // One record per command line and folder; the key says the rest
        // of what the output and the steps' values may depend on.
        let name = NoOpRecord.key(["promise-run-noop/1", here] + arguments)
        var parts = [HelpText.version, binaryIdentity(), here] + arguments
        // The environment, but for what differs between two identical
        // invocations without meaning anything (the program the shell
        // ran, the folder before, hyperfine's random padding); one of them
        // the workflow reads is in the record like any variable it reads.
        // Sorted: a parent may pass the same environment in any order.
        var variables: [String] = []
        var entry = environ
        while let pointer = entry.pointee {
            let variable = String(cString: pointer)
            if !unkeyed.contains(where: { variable.hasPrefix($0) }) { variables.append(variable) }
            entry += 1
        }
        parts += variables.sorted()
        let terminal = (0...2).map { isatty(Int32($0)) == 1 ? "t" : "-" }.joined()
        parts.append(terminal + (isatty(1) == 1 ? " \(TerminalSize.columns())" : ""))
        return Invocation(
            recordPath: NoOpRecord.path(workflowDirectory: directory, name: name), key: NoOpRecord.key(parts),
            file: options.file, directory: directory)
    }

    /// Shows the run from its record when every path it names looks as it
    /// did: the exit code (0); nil when the run must be decided in full.
    static func show(_ invocation: Invocation, options: RunOptions) -> Int32? {
        let started = ContinuousClock.now
        let startedAt = ProcessEnvironment.wallClock()
        guard let record = NoOpRecord.read(invocation.recordPath, key: invocation.key, checking: true) else { return nil }
        _ = DependencyJournal.shared.finish()
        // Nothing runs: a signal now exits at once (128 + it), as for
        // any command that runs nothing.
        SignalWatcher.shared.idle()
        let style = ConsoleStyle(colored: StandardStreams.useColor(options.color, descriptor: 1), githubActions: false)
        let console = Console(
            settings: Console.Settings(
                output: options.output, verbosity: options.verbosity, style: style,
                live: false, ticks: false),
            total: { record.shown.count })
        if options.verbosity != .quiet {
            console.note(style.bold("▶ \(record.workflow)") + style.dim(" (\(invocation.file))"))
        }
        for id in record.shown {
            var step = StepRecord(id: id, label: nil, kind: "", summary: "", order: 0)
            step.status = .upToDate
            step.upToDateFrom = .local
            console.stepFinished(step)
        }
        console.stop()
        var result = RunResult(
            workflow: record.workflow, status: .succeeded,
            records: record.kept.enumerated().map { order, kept in
                var step = StepRecord(id: kept.id, label: kept.label, kind: kept.kind, summary: "", order: order)
                step.status = .upToDate
                step.upToDateFrom = .local
                step.attempts = kept.attempts
                step.startedAt = startedAt
                step.duration = .zero
                return step
            }, startedAt: startedAt, duration: ContinuousClock.now - started)
        result.omitted = OmittedRecords(upToDate: record.omitted)
        // The code lens's last results stay as the full no-op wrote them
        // (each label up to date): rewriting them costs a rename, more
        // than the rest of this run's files together.
        StandardStreams.writeOutput(
            Summary.render(
                result, style: style, verbosity: options.verbosity, interruptedBy: nil,
                width: isatty(1) == 1 ? TerminalSize.columns() : nil))
        return 0
    }

    /// After a run: its record, when it was a no-op the journal vouches
    /// for and every path still looks as the run saw it.
    static func remember(_ result: RunResult, invocation: Invocation) {
        guard let recording = DependencyJournal.shared.finish() else { return }
        let entries = NoOpRecord.inputs(recording.entries)
        guard NoOpRecord.refusal(result, recording: recording, inputs: entries) == nil else {
            // A stale record must not outlive the run that disproved it.
            unlink(invocation.recordPath)
            return
        }
        let record = NoOpRecord(
            key: invocation.key, workflow: result.workflow, shown: result.upToDateOrder,
            kept: result.records.map { .init(id: $0.id, label: $0.label, kind: $0.kind, attempts: $0.attempts) },
            omitted: result.omitted.count, entries: entries)
        guard record.holds else { return }
        record.write(to: invocation.recordPath)
    }

    /// After a run that was no no-op: no record stands for it.
    static func forget(_ invocation: Invocation) {
        _ = DependencyJournal.shared.finish()
        unlink(invocation.recordPath)
    }

    private static let unkeyed = ["_=", "OLDPWD=", "HYPERFINE_RANDOMIZED_ENVIRONMENT_OFFSET="]

    /// This binary: its path and what `stat` says of it (a rebuilt or
    /// upgraded promise-run decides every step again).
    private static func binaryIdentity() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return "?" }
        let path = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var info = stat()
        guard stat(path, &info) == 0 else { return path }
        return "\(path) \(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec) \(info.st_ino)"
    }
}
