import Dispatch
import Glibc
import PromiseEngine
import RunnerSystem
import WorkflowModel

/// Runs `sh` and `exec` steps: spawns the process, hands it to the event
/// loop, and checks the expectations when it has ended.
struct ProcessStepRunner: Sendable {
    let configuration: StepsConfiguration
    let table: ProcessTable

    /// `sh COMMAND`: `/bin/sh -c COMMAND`, or the program directly when the
    /// command is plain words the shell would only split (`ShellFastPath`).
    func runShell(_ command: String, _ options: ResolvedProcessOptions, in context: StepContext) -> Promise<StepResult> {
        if let words = ShellFastPath.words(command),
            let executable = try? ExecutableCache.shared.resolve(
                words[0], environment: context.environment,
                workingDirectory: context.workingDirectory)
        {
            let request = SpawnRequest(
                executable: executable, arguments: words, environment: context.environment,
                workingDirectory: context.workingDirectory,
                feedsStandardInput: options.stdin != nil)
            // A script without a `#!` line cannot be executed directly; the
            // shell would run it as a shell script, and so does the fallback.
            return run(request, options, in: context, onNotExecutable: command)
        }
        return run(Self.shellRequest(command, options, context), options, in: context)
    }

    private static func shellRequest(_ command: String, _ options: ResolvedProcessOptions, _ context: StepContext) -> SpawnRequest {
        SpawnRequest(
            executable: "/bin/sh", arguments: ["sh", "-c", command],
            environment: context.environment, workingDirectory: context.workingDirectory,
            feedsStandardInput: options.stdin != nil)
    }

    /// `exec PROGRAM ARGS...`: the program found in the step's PATH.
    func runExec(_ arguments: [String], _ options: ResolvedProcessOptions, in context: StepContext) -> Promise<StepResult> {
        guard let program = arguments.first else {
            return Promise(error: StepFailure(.spawn, "exec: no program given"))
        }
        let executable: String
        do {
            executable = try ExecutableCache.shared.resolve(
                program, environment: context.environment,
                workingDirectory: context.workingDirectory)
        } catch {
            return Promise(error: StepFailure(.spawn, error.message, result: StepResult()))
        }
        let request = SpawnRequest(
            executable: executable, arguments: arguments, environment: context.environment,
            workingDirectory: context.workingDirectory, feedsStandardInput: options.stdin != nil)
        return run(request, options, in: context)
    }

    /// - Parameters:
    ///   - onNotExecutable: the shell command to start instead when the
    ///     program is not an executable format (ENOEXEC).
    ///   - adjust: looks at what the process left before expectations are
    ///     checked, and may change it or fail the step (the Slurm executor
    ///     takes `srun`'s own messages out of stderr here).
    func run(
        _ request: SpawnRequest, _ options: ResolvedProcessOptions, in context: StepContext,
        onNotExecutable fallback: String? = nil, adjust: RecordAdjustment? = nil
    ) -> Promise<StepResult> {
        let (promise, resolver) = Promise<StepResult>.pending()
        if resolver.isCancelRequested { return .cancelled() }
        // Started on a spawning thread: several children wait for their
        // exec at once, and the caller (the executor, the event loop) goes on.
        let started = ContinuousClock.now
        SpawnThreads.shared.submit(alone: table.runningCount == 0) {
            start(
                request, options, in: context, onNotExecutable: fallback, adjust: adjust, resolver: resolver, started: started,
                delay: .milliseconds(5))
        }
        return promise
    }

    /// See `run(_:_:in:onNotExecutable:adjust:)`.
    typealias RecordAdjustment = @Sendable (inout ProcessRecord) throws(StepFailure) -> Void

    /// Spawns and hands the child over. Out of descriptors (EMFILE,
    /// ENFILE) while other process steps run, it waits for them to free
    /// some and tries again (5 ms, doubling to 500 ms); with none running
    /// there is nothing to wait for, and the step fails saying so.
    private func start(
        _ request: SpawnRequest, _ options: ResolvedProcessOptions, in context: StepContext,
        onNotExecutable fallback: String?, adjust: RecordAdjustment?, resolver: Resolver<StepResult>,
        started: ContinuousClock.Instant, delay: Duration
    ) {
        // Once the runner is shutting down nothing new may run; else the
        // start is counted until the child is in the table (`endStart`),
        // and the shutdown waits for it.
        if resolver.isCancelRequested || !table.beginStart() {
            resolver.cancel()
            return
        }
        let child: SpawnedChild
        let marker = table.makeMark()
        var marked = request
        marked.marker = marker
        do {
            do {
                child = try Spawner.spawn(marked)
            } catch  where error.code == ENOEXEC && fallback != nil {
                var fallback = Self.shellRequest(fallback!, options, context)
                fallback.marker = marker
                child = try Spawner.spawn(fallback)
            }
        } catch {
            table.endStart(adding: nil)
            if error.code == EMFILE || error.code == ENFILE {
                if table.runningCount > 0 {
                    let next = min(delay * 2, .milliseconds(500))
                    // The wait is a timer of the loop, and the next try runs
                    // there: not a Dispatch worker, since libdispatch's pool
                    // monitor opens /proc/<tid>/stat every second while its
                    // queues have work, and ends the process when that open
                    // fails, as it does while descriptors run out.
                    let loop = EventLoop.shared
                    loop.execute {
                        _ = loop.schedule(after: delay) {
                            start(
                                request, options, in: context, onNotExecutable: fallback, adjust: adjust, resolver: resolver,
                                started: started, delay: next)
                        }
                    }
                    return
                }
                var limit = rlimit()
                getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
                resolver.reject(
                    StepFailure(
                        .spawn,
                        "\(error.message): no file descriptor is free (the limit is \(limit.rlim_cur)) and no other step holds any to free; raise the limit (ulimit -n) or lower -j",
                        result: StepResult(duration: started.duration(to: .now))))
                return
            }
            resolver.reject(StepFailure(.spawn, error.message, result: StepResult(duration: started.duration(to: .now))))
            return
        }
        let settings = ProcessExecution.Settings(
            gracePeriod: configuration.killGracePeriod,
            outputLinger: configuration.outputLinger,
            outputLimit: configuration.outputTailLimit)
        let input = Array((options.stdin ?? "").utf8)
        let patterns =
            !options.expectations.isEmpty || !options.captures.isEmpty
            ? ExpectationEvaluator.usesPatterns(options.expectations, options.captures) : false
        let execution = ProcessExecution(
            child: child, marker: marker, detached: options.detach, id: context.id, standardInput: input, sink: context.output,
            settings: settings, started: started, table: table
        ) { end in
            // What the executor chains on the promise (expectations and
            // captures over the output, the next step's spawn) runs where it
            // settles. A step that kept little output settles here, on the
            // loop thread, at once: no worker woken per step (1,000 `true`
            // steps: a third fewer context switches, 3% less wall time). One
            // that kept more settles on a worker, so that checking up to
            // 1 MiB of output does not stall every other step's pipes.
            let settle: @Sendable () -> Void = {
                switch end {
                case .cancelled(var record):
                    // What it printed until it was stopped, for the reports.
                    if let hear = context.cancelledWith {
                        try? adjust?(&record)
                        var produced = StepResult(
                            stdout: record.standardOutput, stderr: record.standardError,
                            duration: record.duration)
                        produced.slurmJob = record.slurmJob
                        hear(produced)
                    }
                    resolver.cancel()
                case .finished(let record):
                    resolver.resolve(
                        Outcome(catching: {
                            var record = record
                            try adjust?(&record)
                            return try Self.result(of: record, options)
                        }))
                }
            }
            if patterns {
                // The process is over: a cancel (a timeout, Ctrl-C) settles
                // the step now, whatever the expression is still doing.
                resolver.onCancel { resolver.cancel() }
                DispatchQueue.global().async(execute: settle)
            } else if end.keptBytes <= Self.settlesInPlace {
                settle()
            } else {
                DispatchQueue.global().async(execute: settle)
            }
        }
        let loop = EventLoop.shared
        // In the table from here on (its group killed at once if the runner
        // began shutting down while it started).
        table.endStart(adding: execution)
        // Watched from here on, without waking the loop thread to start it.
        execution.start()
        resolver.onCancel { loop.execute { execution.cancel() } }
    }

    /// Output kept up to this many bytes: the step settles on the loop
    /// thread (beyond, on a worker).
    static let settlesInPlace = 64 * 1024

    /// The step's result, or the failure its expectations found.
    static func result(of record: ProcessRecord, _ options: ResolvedProcessOptions) throws(StepFailure) -> StepResult {
        var result = StepResult(
            stdout: record.standardOutput, stderr: record.standardError, exitCode: record.exitCode,
            terminatingSignal: record.signal, duration: record.duration)
        result.slurmJob = record.slurmJob
        try ExpectationEvaluator.checkProcess(&result, expectations: options.expectations, captures: options.captures)
        return result
    }
}
