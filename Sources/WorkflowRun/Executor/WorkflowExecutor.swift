package import PromiseEngine
package import RunnerSystem
package import WorkflowModel

/// How a run is set up (from the command line).
package struct ExecutionConfiguration: Sendable {
    /// At most this many process steps (`sh`, `exec`) at once (`-j`).
    package var jobs: Int
    /// At most this many HTTP requests in flight (`--http-connections`).
    package var httpConnections: Int
    /// No fail-fast anywhere (`--keep-going`).
    package var keepGoing: Bool
    /// `--var NAME=VALUE`: values for top-level variables.
    package var variableOverrides: [String: String]
    /// promise-run's own environment: `{{env.X}}`, and the base of every
    /// process's environment.
    package var environment: [String: String]
    /// `--timeout`: for the whole run (exit 124 when it expires).
    package var timeout: Duration?
    /// promise-run's working folder, absolute: a relative workflow path is
    /// relative to it.
    package var currentDirectory: String
    /// Where process output lines go (secrets are masked first).
    package var output: (any StepOutputSink)?
    package var clock: any PromiseClock
    /// How many bytes of each process step's stdout and stderr the records
    /// keep for reports (`--report-output`); 0 keeps none.
    package var reportOutputLimit: Int
    /// `promise-run FILE TARGET...`: only what the targets need runs; nil
    /// runs everything but the `on-demand` steps and groups.
    package var selection: TargetSelection?
    /// `--force`: steps with `sources` run even when up to date.
    package var force: Bool
    /// At most this many Slurm jobs in flight (`--slurm-jobs`).
    package var slurmJobs: Int = 64
    /// `--env-file` settings (already in `environment`): given to the
    /// steps by the run, so, unlike the rest of `environment`, part of a
    /// step's fingerprint.
    package var fileEnvironment: [String: String] = [:]
    /// `--cache`: the shared cache, or nil.
    package var cache: SharedCache?
    /// With no report to write: the run keeps this many successful steps'
    /// records and counts the rest (`RunResult.omitted`), so that a run of
    /// 100,000 iterations does not hold 100,000 records. Nil keeps all.
    package var successesKept: Int?
    /// `--watch`: where each step's resolved `generates` patterns are
    /// told before it runs (what the watcher never reacts to).
    package var generated: GeneratedOutputs?
    /// `-vv`: hears each http step's request and response as
    /// they go over the wire, secrets masked, each block behind a line
    /// naming the step (`* api[3]`).
    package var wire: (@Sendable (String) -> Void)?

    package init(
        jobs: Int, httpConnections: Int = 64, keepGoing: Bool = false,
        variableOverrides: [String: String] = [:], environment: [String: String] = [:],
        timeout: Duration? = nil, currentDirectory: String, output: (any StepOutputSink)? = nil,
        clock: any PromiseClock = SystemClock.shared, reportOutputLimit: Int = 0,
        selection: TargetSelection? = nil, force: Bool = false
    ) {
        self.force = force
        self.reportOutputLimit = reportOutputLimit
        self.selection = selection
        self.jobs = jobs
        self.httpConnections = httpConnections
        self.keepGoing = keepGoing
        self.variableOverrides = variableOverrides
        self.environment = environment
        self.timeout = timeout
        self.currentDirectory = currentDirectory
        self.output = output
        self.clock = clock
    }
}

/// How a run ended, and the record of every step.
package struct RunResult: Sendable {
    package enum Status: String, Sendable {
        case succeeded, failed
        /// Stopped by an interrupt (SIGINT, SIGTERM), after its ensures ran.
        case interrupted
        /// `--timeout` expired; ensures ran.
        case timedOut
    }

    package var workflow: String
    package var status: Status
    /// Why it failed: the failure that reached the top.
    package var error: RunError?
    package var records: [StepRecord]
    /// Steps counted instead of kept (successes of a run with no report,
    /// runs of a label past its first 1,000).
    package var omitted = OmittedRecords()
    /// Per label that ran more than once.
    package var stats: [LabelStats] = []
    /// Every group, in workflow order: the lanes of the HTML timeline, and
    /// the failures of their own (timeouts) in every report.
    package var groups: [GroupRecord]
    /// Seconds since the Unix epoch.
    package var startedAt: Double
    package var duration: Duration
    /// Per label, how its step last ended (those that ran): what the
    /// command keeps in the store for the language server's code lens.
    package var lastResults: [String: LastResult] = [:]
    /// The steps found up to date, in the order they were, while the run
    /// could still be a no-op (its dependency journal recording): what a
    /// no-op record shows again.
    package var upToDateOrder: [String] = []

    package init(
        workflow: String, status: Status, error: RunError? = nil, records: [StepRecord],
        groups: [GroupRecord] = [], startedAt: Double, duration: Duration
    ) {
        self.workflow = workflow
        self.status = status
        self.error = error
        self.records = records
        self.groups = groups
        self.startedAt = startedAt
        self.duration = duration
    }
}

/// Runs a checked workflow by composing promises: a block is a chain of
/// then / recover (catch) / ensure; `parallel`, `race`, `any` and `foreach`
/// are lane schedulers; timeouts and retries come from the engine.
///
/// Cancellation is structured: every node runs in a `CancelScope` inside
/// its parent's; a timeout, a fail-fast sibling, a lost race or an
/// interrupt cancels a scope and everything in it, and a group ends only
/// once all its children have stopped. Ensure blocks run in detached
/// scopes, so they run to their end.
package final class WorkflowExecutor: Sendable {
    let workflow: Workflow
    let configuration: ExecutionConfiguration
    /// What runs: the targets' cut, or an ordinary run's (every node but
    /// the `on-demand` ones).
    let selection: TargetSelection
    let runner: any StepRunner
    let observer: (any ExecutionObserver)?
    let secrets = Secrets()
    let recorder: RunRecorder
    /// Step summaries by node id (`summary(of:_:)`).
    let summaries = Lock<[String: String]>([:])
    /// Steps by node id, resolved once when their templates are all plain
    /// text (`resolve`).
    let constantSteps = Lock<[String: ConstantStep]>([:])
    let interpolator: Interpolator
    /// The workflow file's folder, absolute: relative paths resolve here.
    let directory: String
    let root = CancelScope()
    let processSlots: Slots
    let httpSlots: Slots
    /// The run's cookie store: the http steps' outside iterations, and
    /// where a group's iterations take theirs from.
    let runCookies = CookieStore()
    let slurmSlots: Slots
    /// Fingerprints of steps with `sources` (`.promise-run/` beside the file).
    let store: IncrementalStore
    /// `sources` patterns already said to match nothing (pattern and folder).
    let warnedPatterns = Lock<Set<String>>([])
    /// The load groups running now, in the order they started (their
    /// progress lines).
    let loads = Lock<[GroupProgress]>([])
    private let ending = Lock<RunResult.Status?>(nil)
    /// What stopped an interrupted run ("interrupted by SIGINT"): its
    /// failure in every report, as a `--timeout` is.
    private let interruption = Lock<String?>(nil)
    var clock: any PromiseClock { configuration.clock }

    package init(
        workflow: Workflow, configuration: ExecutionConfiguration, runner: any StepRunner,
        observer: (any ExecutionObserver)? = nil
    ) {
        self.workflow = workflow
        self.configuration = configuration
        selection = configuration.selection ?? .ordinary(workflow)
        self.runner = runner
        self.observer = observer
        recorder = RunRecorder(
            observer: observer, secrets: secrets, clock: configuration.clock,
            outputLimit: configuration.reportOutputLimit, successesKept: configuration.successesKept)
        interpolator = Interpolator(workflow: workflow, environment: configuration.environment, secrets: secrets)
        directory = Paths.absolute(workflow.directory, from: configuration.currentDirectory)
        store = IncrementalStore(workflowDirectory: Paths.absolute(workflow.directory, from: configuration.currentDirectory))
        processSlots = Slots(capacity: configuration.jobs)
        httpSlots = Slots(capacity: configuration.httpConnections)
        slurmSlots = Slots(capacity: configuration.slurmJobs)
        if let cache = configuration.cache {
            for secret in cache.location.secrets { secrets.add(secret) }
            cache.onWarning { [secrets, observer] message in observer?.warning(secrets.mask(message)) }
        }
    }

    /// How many steps the run has, as far as known now.
    package var stepCount: Int { recorder.count }

    /// The statistics so far of the labels that ran more than once.
    package var labelStatistics: [LabelStats] { recorder.labelStats() }

    /// How far each load group running now has come (a `repeat`, or a
    /// `foreach` with a `rate`), in the order they started.
    package var loadProgress: [LoadProgress] { loads.withLock { $0 }.map(\.snapshot) }

    /// `text` with every secret masked: for anything shown to people.
    package func mask(_ text: String) -> String {
        secrets.mask(text)
    }

    /// Stops the run as Ctrl-C does: cancels everything running, skips
    /// what has not started, runs the ensures. `status` says why.
    package func interrupt(_ status: RunResult.Status = .interrupted, because reason: String? = nil) {
        if let reason { interruption.withLock { $0 = $0 ?? reason } }
        let first: Bool = ending.withLock { ending in
            guard ending == nil else { return false }
            ending = status
            return true
        }
        if first { root.cancel() }
    }

    /// Runs the workflow. The promise is always fulfilled, with how it ended.
    package func run() -> Promise<RunResult> {
        let start = clock.now()
        let startedAt = WallClock.now()
        let context = ExecutionContext(
            values: ValueScope(parent: nil), cancel: root, suffix: "", key: [],
            cut: !selection.targets.isEmpty)
        registerSteps(in: workflow.body, key: [], suffix: "")

        let runTimer = configuration.timeout.map { limit in
            clock.schedule(after: limit) { [self] in self.interrupt(.timedOut) }
        }
        let block = workflow.bodyWithVariables(overrides: configuration.variableOverrides)
        let body = limit(timeout: workflow.timeout, id: workflow.name, in: context) { context in
            self.runBlock(block, context)
        }
        return body.derive(
            .inline,
            .outcome { [self] outcome in
                runTimer?.cancel()
                recorder.closeAll()
                // What the store saw of the files it hashed, for the next run.
                store.hashes.save()
                let ended = ending.withLock { $0 }
                var status: RunResult.Status
                var error: RunError?
                switch outcome {
                case .fulfilled: status = .succeeded
                case .rejected(let failure):
                    status = .failed
                    error = failure as? RunError ?? RunError(stepID: workflow.name, kind: .fail, message: "\(failure)")
                case .cancelled: status = .interrupted
                }
                if let ended { status = ended }
                if status == .timedOut, let limit = configuration.timeout {
                    // The run's own failure: reports count it (spec: a timeout
                    // is a failure, at every level).
                    let message = "the run timed out after \(DurationText.format(limit)) (--timeout)"
                    error = RunError(
                        stepID: workflow.name, kind: .timeout, message: message,
                        others: error.map { [$0] } ?? [])
                }
                if status == .interrupted {
                    // Red in every report (a cancelled step is no failure of its
                    // own): the run's failure, as a timeout's.
                    let message = interruption.withLock { $0 } ?? "interrupted"
                    error = RunError(stepID: workflow.name, kind: .signal, message: message, others: error.map { [$0] } ?? [])
                }
                var result = RunResult(
                    workflow: workflow.name, status: status, error: error.map(masked),
                    records: recorder.records(), groups: recorder.groups(),
                    startedAt: startedAt, duration: clock.now() - start)
                result.omitted = recorder.omitted()
                result.stats = recorder.labelStats()
                result.lastResults = recorder.lastResults()
                result.upToDateOrder = recorder.upToDateOrder()
                return .outcome(.fulfilled(result))
            })
    }

    func masked(_ error: RunError) -> RunError {
        var error = error
        error.message = secrets.mask(error.message)
        error.others = error.others.map(masked)
        return error
    }
}

/// Where a node runs: its values, its cancellation scope, and how its
/// steps are named (`[i]` inside foreach iterations) and ordered.
///
/// Its fields live in one shared box (`BoxedFields`): a context is copied
/// at every level of a step's way down (block, node, step, attempt) and
/// into the closures that end it, and each copy is then one reference
/// count, not one a field (about 80 an HTTP request in the open model).
@dynamicMemberLookup
struct ExecutionContext: BoxedFields, Sendable {
    struct Fields: Sendable {
        var values: ValueScope
        var cancel: CancelScope
        /// Appended to step ids: `[2]` in iteration 2 of a foreach.
        var suffix: String
        /// Being cut down to the run's targets (`WorkflowExecutor.selection`);
        /// false: run whole (but for what is `on-demand`).
        var cut: Bool
        /// With `rate`: the iteration's scheduled start, which its first step
        /// takes as the start of its latency.
        var latencyStart: LatencyStart? = nil
        /// Inside a group with an `expect failures` threshold: the
        /// groups run as with keep-going; the threshold decides.
        var countsFailures = false
        /// The groups with thresholds around this point: each hears every
        /// step that ends inside it.
        var measures: [GroupMeasure] = []
        /// A foreach iteration whose one step is recorded when it ends, not
        /// registered when it starts (`leanIterations`): what its record
        /// shares with the other iterations'.
        var unregistered: LeanIterations? = nil
        /// The cookie store of the iteration around this point;
        /// nil outside iterations: the run's (`WorkflowExecutor.runCookies`).
        var cookies: CookieStore? = nil
        /// The measure of the `repeat` or `foreach` about to run, which counts
        /// its iterations (`expect rate`); cleared inside them.
        var iterationMeasure: GroupMeasure? = nil
    }

    var storage: CopyOnWrite<Fields>
    /// Sort key of the current block in the report. Beside the box, not
    /// in it: every block level sets its own, and the rest stays shared.
    var key: [Int]

    init(values: ValueScope, cancel: CancelScope, suffix: String, key: [Int], cut: Bool) {
        storage = CopyOnWrite(Fields(values: values, cancel: cancel, suffix: suffix, cut: cut))
        self.key = key
    }

    /// The key of this point's `index`th child: one array made.
    func key(ofChild index: Int) -> [Int] {
        var child: [Int] = []
        child.reserveCapacity(key.count + 1)
        child.append(contentsOf: key)
        child.append(index)
        return child
    }
}

/// When an iteration was due to start (`rate`): its first step's latency
/// runs from there, so that a slow server cannot hide behind the requests
/// it delayed (coordinated omission). Taken once.
final class LatencyStart: Sendable {
    private struct State {
        var due: Duration?
        var earlier: Duration = .zero
    }

    private let state: Lock<State>

    init(_ due: Duration) {
        state = Lock(State(due: due))
    }

    /// The scheduled start, the first time; nil after.
    func take() -> Duration? {
        state.withLock { state in
            defer { state.due = nil }
            return state.due
        }
    }

    /// A step of the iteration ended `earlier` than it was seen to end
    /// (`StepResult.settledEarlier`).
    func ended(earlier: Duration) {
        state.withLock { $0.earlier = earlier }
    }

    /// How much earlier than seen the iteration's last step ended.
    var lastEndedEarlier: Duration { state.withLock { $0.earlier } }
}
