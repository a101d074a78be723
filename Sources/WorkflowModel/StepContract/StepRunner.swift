package import PromiseEngine

/// Runs the steps that reach outside the runner: `sh`, `exec`, `http` and
/// `file`. The executor resolves every template of the step first (a
/// `ResolvedStep` holds plain strings: a runner never sees a template), and
/// decides when the step may start
/// (`-j`, `--http-connections`, group limits); the runner does the work.
///
/// The returned promise is fulfilled with the step's result when every
/// expectation held, and rejected with a `StepFailure` otherwise. Cancelling
/// it must reach the real work (kill the process group, cancel the request)
/// and settle it as cancelled once the work has stopped.
package protocol StepRunner: Sendable {
    func run(_ step: ResolvedStep, in context: StepContext) -> Promise<StepResult>
}

/// Where and how a step runs.
package struct StepContext: Sendable {
    /// The step's id in reports (`build`, `fetch[3]`).
    package var id: String
    /// The folder relative paths resolve against (the workflow file's folder,
    /// or `cwd`), absolute.
    package var workingDirectory: String
    /// The whole environment for a process: promise-run's own, with the
    /// workflow's `env` settings applied.
    package var environment: [String: String]
    /// Receives the step's output, a line at a time, as it comes.
    package var output: (any StepOutputSink)?
    /// Hears how many bytes of a download arrived (and how many are
    /// expected, when the server said).
    package var transfer: (@Sendable (_ received: Int64, _ expected: Int64?) -> Void)?
    /// A process step that runs on Slurm: what it asks of the
    /// cluster. Nil: on this machine.
    package var slurm: SlurmRequest?
    /// Hears what a step had produced when it was cancelled (a lost race,
    /// fail-fast, a timeout): its output so far, its Slurm job. Reports
    /// show it; the step's promise is cancelled all the same.
    package var cancelledWith: (@Sendable (StepResult) -> Void)?
    /// The cookie store an http step reads and fills: its iteration's
    /// or the run's. Nil: the step runner's own.
    package var cookies: CookieStore?
    /// `-vv`: hears an http step's request and response as they go over
    /// the wire (start line, headers, the first 4 KiB of each body), one
    /// block of text each; the executor masks secrets on the way out.
    package var wire: (@Sendable (String) -> Void)?

    package init(
        id: String, workingDirectory: String, environment: [String: String],
        output: (any StepOutputSink)? = nil,
        transfer: (@Sendable (Int64, Int64?) -> Void)? = nil, slurm: SlurmRequest? = nil
    ) {
        self.slurm = slurm
        self.id = id
        self.workingDirectory = workingDirectory
        self.environment = environment
        self.output = output
        self.transfer = transfer
    }
}

/// The two streams of a process.
package enum OutputChannel: String, Sendable {
    case stdout, stderr
}

/// Where the lines of a step's output go while it runs (the console).
package protocol StepOutputSink: Sendable {
    /// One line, without its newline. Called from any thread, in order per stream.
    func line(_ text: String, stream: OutputChannel, step id: String)
}
