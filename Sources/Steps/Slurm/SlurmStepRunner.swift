import Dispatch
import Glibc
import PromiseEngine
import Synchronization
import WorkflowModel

/// Runs process steps on a Slurm cluster: each as one job step
/// through `srun`, a local process promise-run watches like any other.
///
/// Why `srun` and not `sbatch`: `srun` streams the task's stdout and
/// stderr back as they come, passes stdin, returns the task's exit code,
/// and ends the job step when it is signalled; `sbatch` would need output
/// files on a shared folder, polling of the queue for the end, and `sacct`
/// (accounting) for the exit code. The cost is one local `srun` process
/// per running step, which `--slurm-jobs` bounds.
///
/// Every job gets the name `<run tag>-<n>`: a step's job is cancelled by
/// name when the step is (timeout, fail-fast, a lost race), and at the end
/// of the run every job whose name starts with the tag is cancelled and
/// waited for, so none outlives promise-run.
/// See docs/language.md, 'Where process steps run: Slurm'.
final class SlurmStepRunner: Sendable {
    private let processes: ProcessStepRunner
    /// `pr-<pid>-<random>`: this run's jobs, and no other's.
    let tag: String
    private let counter = Atomic<Int>(0)
    /// The environment of the last Slurm step, for `scancel`/`squeue`
    /// (SLURM_CONF and PATH come from it); nil until one ran.
    private let clientEnvironment = Lock<[String: String]?>(nil)

    init(processes: ProcessStepRunner) {
        self.processes = processes
        tag = "pr-\(getpid())-" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
    }

    func runShell(_ command: String, _ options: ResolvedProcessOptions, in context: StepContext) -> Promise<StepResult> {
        run(["/bin/sh", "-c", command], options, in: context)
    }

    func runExec(_ arguments: [String], _ options: ResolvedProcessOptions, in context: StepContext) -> Promise<StepResult> {
        guard !arguments.isEmpty else { return Promise(error: StepFailure(.spawn, "exec: no program given")) }
        return run(arguments, options, in: context)
    }

    private func run(_ command: [String], _ options: ResolvedProcessOptions, in context: StepContext) -> Promise<StepResult> {
        let request = context.slurm ?? SlurmRequest()
        let srun: String
        do {
            srun = try ExecutableCache.shared.resolve(
                "srun", environment: context.environment,
                workingDirectory: context.workingDirectory)
        } catch {
            return Promise(
                error: StepFailure(
                    .spawn,
                    "srun was not found in PATH: install Slurm's client commands "
                        + "(Debian: slurm-client) or run with --executor local", result: StepResult()))
        }
        // srun would run the task in /tmp when the folder is missing on
        // the node (a warning, not an error); the folder must be one the
        // nodes share, so it is checked here.
        var status = stat()
        guard stat(context.workingDirectory, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR else {
            return Promise(
                error: StepFailure(
                    .spawn,
                    "the step's folder \(context.workingDirectory) does not exist; "
                        + "a Slurm step runs in a folder the nodes share", result: StepResult()))
        }
        clientEnvironment.withLock { $0 = context.environment }
        let name = "\(tag)-\(counter.add(1, ordering: .relaxed).newValue)"
        let arguments = ["srun"] + Self.options(request, name: name, folder: context.workingDirectory) + command
        let spawn = SpawnRequest(
            executable: srun, arguments: arguments, environment: context.environment,
            workingDirectory: context.workingDirectory, feedsStandardInput: options.stdin != nil)
        let job = JobNote()
        var slurmContext = context
        slurmContext.output = SrunOutputFilter(inner: context.output, job: job)
        let environment = context.environment
        return processes.run(
            spawn, options, in: slurmContext,
            adjust: { record throws(StepFailure) in
                try SrunMessages.adjust(&record, job: job.id)
            }
        ).tap { outcome in
            // srun ends its job step when it is signalled; when it was
            // killed outright, or had not got its allocation yet, the job
            // is cancelled by name (a no-op for a finished job).
            if case .cancelled = outcome {
                DispatchQueue.global().async { _ = SlurmCommands.run(["scancel", "--name=\(name)"], environment: environment) }
            }
        }
    }

    /// `srun`'s options for one step: one task on one node, named, in the
    /// step's folder, with what the step asks for; verbose so that the job
    /// id comes back (its lines are taken out of the step's stderr).
    static func options(_ request: SlurmRequest, name: String, folder: String) -> [String] {
        var options = ["--verbose", "--job-name=\(name)", "--nodes=1", "--ntasks=1", "--kill-on-bad-exit=1", "--chdir=\(folder)"]
        if let partition = request.partition { options.append("--partition=\(partition)") }
        if let cpus = request.cpus { options.append("--cpus-per-task=\(cpus)") }
        if let memory = request.memory { options.append("--mem=\(memory)") }
        if let limit = request.timeLimit {
            // Whole minutes, rounded up: the step's own timeout is exact.
            let seconds = limit.components.seconds + (limit.components.attoseconds > 0 ? 1 : 0)
            options.append("--time=\(max(1, (seconds + 59) / 60))")
        }
        return options + request.options
    }

    /// Cancels every job of this run still queued or running and waits
    /// (up to `wait`) until the queue shows none; for the end of the run.
    /// Nothing to do when no step ran on Slurm.
    /// Whether a job was ever submitted in this run (nothing to cancel otherwise).
    var submittedAny: Bool { clientEnvironment.withLock { $0 != nil } }

    func cancelAll(wait: Duration = .seconds(30)) {
        guard let environment = clientEnvironment.withLock({ $0 }) else { return }
        let deadline = ContinuousClock.now + wait
        var delay = Duration.milliseconds(50)
        while true {
            guard let jobs = SlurmCommands.jobs(named: tag + "-", environment: environment), !jobs.isEmpty else { return }
            _ = SlurmCommands.run(["scancel"] + jobs, environment: environment)
            guard ContinuousClock.now < deadline else { return }
            let nanoseconds = delay.components.seconds * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000
            usleep(UInt32(nanoseconds / 1000))
            delay = min(delay * 2, .milliseconds(500))
        }
    }
}

/// The job id of one step, as `srun --verbose` says it.
final class JobNote: Sendable {
    private let value = Lock<String?>(nil)
    var id: String? { value.withLock { $0 } }
    func note(_ id: String) { value.withLock { if $0 == nil { $0 = id } } }
}

/// Passes a Slurm step's output lines on without `srun`'s progress lines,
/// noting the job id on the way.
struct SrunOutputFilter: StepOutputSink {
    let inner: (any StepOutputSink)?
    let job: JobNote

    func line(_ text: String, stream: OutputChannel, step id: String) {
        if stream == .stderr {
            let line = Substring(text)
            if let job = SrunMessages.jobID(in: line) { self.job.note(job) }
            if SrunMessages.isChatter(line) { return }
        }
        inner?.line(text, stream: stream, step: id)
    }
}
