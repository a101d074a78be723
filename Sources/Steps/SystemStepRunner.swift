import CSystemShims
import Dispatch
import Glibc
package import PromiseEngine
package import WorkflowModel

/// The step runner of a real run: processes spawned (vfork-style) in process
/// groups of their own, or as Slurm job steps through `srun`,
/// HTTP on the same event loop (HTTP/1.1 of its own, libcurl for HTTPS,
/// HTTP/2 and proxies), files with POSIX calls.
///
/// One runner serves one run. At the end of the run call `shutdown()` and
/// wait for it; on a second Ctrl-C call `killAll()`: between them no child
/// outlives promise-run.
/// See docs/language.md, 'Where process steps run: Slurm'.
package final class SystemStepRunner: StepRunner {
    package let configuration: StepsConfiguration
    private let processes: ProcessStepRunner
    private let slurm: SlurmStepRunner
    private let files: FileStepRunner
    private let http: HTTPClient
    private let table = ProcessTable()

    package init(configuration: StepsConfiguration = StepsConfiguration()) {
        self.configuration = configuration
        // Writing to a pipe whose reader has gone (a child that does not
        // read its stdin) must fail with EPIPE, not kill promise-run.
        // Children get the default disposition back (csh_spawn).
        signal(SIGPIPE, SIG_IGN)
        processes = ProcessStepRunner(configuration: configuration, table: table)
        slurm = SlurmStepRunner(processes: processes)
        files = FileStepRunner(configuration: configuration)
        http = HTTPClient(configuration: configuration)
    }

    package func run(_ step: ResolvedStep, in context: StepContext) -> Promise<StepResult> {
        switch step {
        case .shell(let command, let options):
            return executor(for: context).runShell(command, options, in: context)
        case .exec(let arguments, let options):
            return executor(for: context).runExec(arguments, options, in: context)
        case .http(let request):
            return http.run(request, in: context)
        case .file(let operation):
            return files.run(operation, in: context)
        case .sleep, .log, .fail, .rethrow:
            return Promise(error: StepFailure(.fail, "'\(step.kindName)' is run by the executor, not by a step runner"))
        }
    }

    /// Where a process step runs: Slurm when its context asks for it.
    private func executor(for context: StepContext) -> any ProcessLauncher {
        context.slurm != nil ? slurm : processes
    }

    /// SIGKILL, now, to every process group this runner started that may
    /// still be alive: running steps (which then settle as cancelled) and
    /// the processes finished steps left behind. Nothing new starts after.
    /// For a second Ctrl-C; returns at once.
    package func killAll() {
        table.killAll()
        http.invalidate()
        slurm.cancelAll(wait: .zero)
    }

    /// The end of a run: cancels the requests in flight, SIGTERMs every
    /// process group still alive (running steps and what finished steps
    /// left behind), SIGKILLs what is left after the grace period, and is
    /// fulfilled once every process is gone and reaped. Nothing new starts
    /// after.
    package func shutdown(gracePeriod: Duration? = nil) -> Promise<Void> {
        http.invalidate()
        let slurm = self.slurm
        return table.terminateAll(gracePeriod: gracePeriod ?? configuration.killGracePeriod).then { () -> Promise<Void> in
            // No job of the run may stay queued or running on the cluster
            // (a run that submitted none asks nothing, on no thread).
            guard slurm.submittedAny else { return Promise(value: ()) }
            let (done, resolver) = Promise<Void>.pending()
            DispatchQueue.global().async {
                slurm.cancelAll()
                resolver.fulfill()
            }
            return done
        }
    }

    /// For a process about to exit, after `shutdown`: when the shutdown
    /// found nothing of this runner's left, the watchdog (which would
    /// otherwise sweep /proc once the process is gone, outliving it by a
    /// moment) exits now and is reaped. After a shutdown that gave up on a
    /// process, or a `killAll`, the watchdog is left to sweep.
    package func dismissWatchdogIfDone() {
        if table.endedEverything { StepMarkers.dismissWatchdog() }
    }

    /// What finished steps left running (in their group or out of it: a new
    /// session, a double fork), found and ended by `shutdown`; the caller
    /// warns about them.
    package var leftovers: [LeftoverProcess] { table.leftovers }

    /// Running process steps, and groups left behind by finished ones that
    /// still have a live process.
    package var liveProcessGroups: (running: Int, leftBehind: Int) {
        let counts = table.counts
        return (counts.running, counts.lingering)
    }
}
