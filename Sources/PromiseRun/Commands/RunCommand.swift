import CommandLineOptions
import Glibc
import PromiseEngine
import Reports
import RunnerSystem
import Steps
import WorkflowLanguage
import WorkflowModel
import WorkflowRun

/// Runs a checked workflow: wires the executor to the real steps, the
/// console and the reports, handles signals, and gives the exit code
/// (0 succeeded, 1 failed, 124 --timeout, 130/143/129 interrupted by
/// SIGINT/SIGTERM/SIGHUP).
func runWorkflow(
    _ workflow: Workflow, options: RunOptions, selection: TargetSelection? = nil,
    onStart: (@Sendable (WorkflowExecutor) -> Void)? = nil, stoppedBecause: (@Sendable () -> String?)? = nil,
    generated: GeneratedOutputs? = nil, liveOutputs: LiveOutputs? = nil,
    noOp: NoOpRun.Invocation? = nil
) async -> Int32 {
    // `--executor`: where process steps that do not say run.
    let workflow = options.executor.map { workflow.withDefaultExecutor($0) } ?? workflow
    let environment = ProcessEnvironment.current()
    let style = ConsoleStyle(
        colored: StandardStreams.useColor(options.color, descriptor: 1),
        githubActions: environment["GITHUB_ACTIONS"] == "true")
    let live = isatty(1) == 1 && options.verbosity != .quiet && environment["TERM"] != "dumb"
    let connections = ConnectionCap(
        workflow: workflow, option: options.httpConnections, overrides: options.variableOverrides,
        descriptors: DescriptorLimit.raise())
    let currentDirectory = ProcessEnvironment.currentDirectory()
    let caCertificate = options.caCertificate.map { $0.hasPrefix("/") ? $0 : currentDirectory + "/" + $0 }
    let runner = SystemStepRunner(
        configuration: StepsConfiguration(
            httpConnections: connections.cap,
            insecure: options.insecure, caCertificate: caCertificate,
            httpVersion: options.httpVersion))
    let executorBox = ExecutorBox()
    let console = Console(
        settings: Console.Settings(
            output: options.output, verbosity: options.verbosity, style: style, live: live,
            loadGroups: workflow.loadGroupIDs),
        total: { executorBox.executor?.stepCount ?? 0 },
        labels: { executorBox.executor?.labelStatistics ?? [] },
        loads: { executorBox.executor?.loadProgress ?? [] })
    var configuration = ExecutionConfiguration(
        jobs: options.jobs ?? ProcessEnvironment.processorCount(),
        httpConnections: connections.cap,
        keepGoing: options.keepGoing,
        variableOverrides: options.variableOverrides,
        environment: CacheSetting.withoutCredentials(environment),
        timeout: options.timeout,
        currentDirectory: ProcessEnvironment.currentDirectory(),
        output: console,
        reportOutputLimit: ReportWriter.keepsOutput(options.reports, environment: environment) ? options.reportOutputKiB * 1024 : 0,
        selection: selection,
        force: options.force)
    configuration.slurmJobs = options.slurmJobs
    configuration.generated = generated
    if options.showsWire { configuration.wire = { text in StandardStreams.writeError(text) } }
    // No report to write: the console needs the steps that did not succeed
    // and counts, not a record of every success (a run of 100,000
    // iterations keeps a few dozen).
    if options.reports.isEmpty, (environment["GITHUB_STEP_SUMMARY"] ?? "").isEmpty {
        configuration.successesKept = Summary.fullTableLimit + 1
    }
    switch CacheSetting.make(options, environment: environment, runner: runner, clock: configuration.clock) {
    case .success(let cache): configuration.cache = cache
    case .failure(let error):
        StandardStreams.writeError("promise-run: \(error.message)\n")
        return 2
    }
    // What `--env-file` gave (already in the environment): part of a
    // step's fingerprint, unlike what promise-run inherited.
    for path in options.envFiles {
        if case .success(let pairs) = EnvFiles.load(path) {
            for (name, value) in pairs { configuration.fileEnvironment[name] = value }
        }
    }
    if let warning = connections.warning { console.warning(warning) }
    // `--metrics-listen`, `--events`: observers beside the console.
    let watchers =
        liveOutputs?.observers(
            workflow: workflow.name, file: workflow.source.displayPath,
            mask: { executorBox.executor?.mask($0) ?? $0 }) ?? []
    let observer: any ExecutionObserver = watchers.isEmpty ? console : ObserverFanOut(observers: [console] + watchers)
    let executor = WorkflowExecutor(workflow: workflow, configuration: configuration, runner: runner, observer: observer)
    executorBox.executor = executor
    onStart?(executor)

    UnhandledErrors.setHandler { error in
        StandardStreams.writeError("promise-run: internal error nobody handled: \(executor.mask("\(error)"))\n")
    }
    let signals = SignalWatcher.shared
    signals.running(
        first: { signal in
            console.note(style.yellow("⊘ \(SignalWatcher.name(of: signal)): stopping; running ensures (send it again to stop at once)"))
            executor.interrupt(because: "interrupted by \(SignalWatcher.name(of: signal))")
        },
        second: { signal in
            console.stop()
            StandardStreams.writeError("promise-run: stopped at once; killing every process\n")
            runner.killAll()
            exit(128 + signal)
        })

    if options.verbosity != .quiet {
        console.note(style.bold("▶ \(workflow.name)") + style.dim(" (\(workflow.source.displayPath))"))
    }
    let result = await outcome(of: executor.run()).value ?? failedResult(workflow)
    // How each labelled step ended, for the language server's code lens
    // (beside a workflow file: one read from standard input has no editor).
    if workflow.source.path != "-" {
        LastResults.save(result.lastResults, workflowDirectory: Paths.absolute(workflow.directory, from: currentDirectory))
    }
    // The run waits for its uploads to the shared cache (bounded).
    if let cache = configuration.cache { _ = await outcome(of: cache.finish()) }
    _ = await outcome(of: runner.shutdown())
    // Nothing of the run left: its watchdog goes before promise-run does.
    runner.dismissWatchdogIfDone()
    console.stop()
    for leftover in runner.leftovers {
        StandardStreams.writeError(
            style.yellow("warning: ") + "'\(leftover.step)' left '\(executor.mask(leftover.command))' "
                + "(pid \(leftover.pid)) running; it was ended with the run\n")
    }

    StandardStreams.writeOutput(
        Summary.render(
            result, style: style, verbosity: options.verbosity,
            interruptedBy: signals.firstSignal,
            stopReason: signals.firstSignal == nil ? stoppedBecause?() : nil,
            width: isatty(1) == 1 ? TerminalSize.columns() : nil))
    if environment["GITHUB_ACTIONS"] == "true" {
        StandardStreams.writeOutput(Summary.githubAnnotations(result, workflow: workflow))
    }
    var problems = ReportWriter.write(result, to: options.reports, relativeTo: ProcessEnvironment.currentDirectory())
    if let summary = environment["GITHUB_STEP_SUMMARY"], !summary.isEmpty,
        let problem = ReportWriter.appendStepSummary(result, to: summary)
    {
        problems.append(problem)
    }
    for problem in problems { StandardStreams.writeError("promise-run: \(problem)\n") }

    let code: Int32
    switch result.status {
    // A report asked for and not written fails a run that succeeded:
    // a green job must not lack its JUnit file.
    case .succeeded: code = problems.isEmpty ? 0 : 1
    case .failed: code = 1
    case .timedOut: code = 124
    case .interrupted: code = 128 + (signals.firstSignal ?? SIGINT)
    }
    liveOutputs?.runEnded(result, exitCode: code)
    // A no-op, exactly as the next identical run would see it: its record
    // (NoOpRun), written last, after everything the run wrote.
    if let noOp {
        if code == 0, problems.isEmpty, runner.leftovers.isEmpty, !console.warned {
            NoOpRun.remember(result, invocation: noOp)
        } else {
            NoOpRun.forget(noOp)
        }
    }
    return code
}

/// Lets the console ask the executor for the step count before it exists.
private final class ExecutorBox: @unchecked Sendable {
    // @unchecked: set once, before the run starts and before the console's
    // timer can read it; a read before that sees nil.
    var executor: WorkflowExecutor?
}

/// Never used in practice: the executor's promise is always fulfilled.
private func failedResult(_ workflow: Workflow) -> RunResult {
    RunResult(
        workflow: workflow.name, status: .failed,
        error: RunError(stepID: workflow.name, kind: .fail, message: "the run ended without a result"),
        records: [], startedAt: ProcessEnvironment.wallClock(), duration: .zero)
}

/// How `promise` ended: read at once when it already has (a run whose steps
/// were all up to date ends as it starts), so that nothing suspends; else
/// awaited.
private func outcome<Value>(of promise: Promise<Value>) async -> Outcome<Value> {
    if let settled = promise.outcome { return settled }
    return await promise.settled
}
