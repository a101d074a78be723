import PromiseTestSupport
import Synchronization
import WorkflowTestSupport

@testable import PromiseEngine
@testable import WorkflowLanguage
@testable import WorkflowModel
@testable import WorkflowRun

/// A step runner for the executor's unit tests: it interprets `sh` commands
/// as a tiny script, so the tests control exactly when each step ends. The
/// real runner (processes, HTTP, files) is tested in StepsTests and end to
/// end; here the subject is the executor's scheduling and semantics.
///
/// - `ok` / `echo TEXT`: succeeds (stdout TEXT)
/// - `exit N`: exits with N (fails unless expected)
/// - `wait NAME`: runs until `release(NAME)`; cancelling it records `cancel NAME`
/// - `sleep D`: ends after D on the test's manual clock
final class ScriptedRunner: StepRunner, Sendable {
    let events = Recorder<String>()
    private let waiting = Lock<[String: Resolver<StepResult>]>([:])
    private let running = Atomic<Int>(0)
    private let peak = Atomic<Int>(0)
    let clock: ManualClock

    init(clock: ManualClock) {
        self.clock = clock
    }

    var peakConcurrency: Int { peak.load(ordering: .relaxed) }

    func run(_ step: ResolvedStep, in context: StepContext) -> Promise<StepResult> {
        guard case .shell(let script, _) = step else {
            return Promise(value: StepResult(path: "\(step.kindName)"))
        }
        events.record("start \(context.id)")
        let now = running.add(1, ordering: .relaxed).newValue
        var max = peak.load(ordering: .relaxed)
        while now > max, !peak.compareExchange(expected: max, desired: now, ordering: .relaxed).exchanged {
            max = peak.load(ordering: .relaxed)
        }
        let words = script.split(separator: " ", maxSplits: 1).map(String.init)
        let (promise, resolver) = Promise<StepResult>.pending()
        let id = context.id
        let done: Promise<StepResult> = promise.ensure { [self] in
            running.subtract(1, ordering: .relaxed)
            events.record("end \(id)")
        }
        switch words[0] {
        case "ok":
            resolver.fulfill(StepResult(stdout: CapturedText(text: ""), exitCode: 0))
        case "echo":
            resolver.fulfill(StepResult(stdout: CapturedText(text: words.count > 1 ? words[1] : ""), exitCode: 0))
        case "env":
            resolver.fulfill(StepResult(stdout: CapturedText(text: context.environment[words[1]] ?? "<unset>"), exitCode: 0))
        case "exit":
            let code = Int(words[1]) ?? 1
            let result = StepResult(stderr: CapturedText(text: "boom \(code)"), exitCode: code)
            if code == 0 {
                resolver.fulfill(result)
            } else {
                resolver.reject(StepFailure(.exit, "exit code \(code), expected 0", result: result))
            }
        case "wait":
            let name = words[1]
            waiting.withLock { $0[name] = resolver }
            resolver.onCancel { [self] in
                events.record("cancel \(name)")
                resolver.cancel()
            }
        case "sleep":
            let duration = DurationText.parse(words[1]) ?? .seconds(1)
            let timer = clock.schedule(after: duration) {
                resolver.fulfill(StepResult(stdout: CapturedText(text: ""), exitCode: 0))
            }
            resolver.onCancel { [self] in
                timer.cancel()
                events.record("cancel \(id)")
                resolver.cancel()
            }
        default:
            resolver.reject(StepFailure(.spawn, "unknown script '\(script)'"))
        }
        return done
    }

    /// Ends a `wait NAME` step successfully.
    func release(_ name: String, stdout: String = "") {
        let resolver = waiting.withLock { $0.removeValue(forKey: name) }
        resolver?.fulfill(StepResult(stdout: CapturedText(text: stdout), exitCode: 0))
    }

    /// Ends a `wait NAME` step with an exit code.
    func fail(_ name: String, exit code: Int = 1) {
        let resolver = waiting.withLock { $0.removeValue(forKey: name) }
        resolver?.reject(StepFailure(.exit, "exit code \(code), expected 0", result: StepResult(exitCode: code)))
    }

    var waitingNames: [String] { waiting.withLock { $0.keys.sorted() } }
}

/// Collects what the executor reports.
final class CollectingObserver: ExecutionObserver, Sendable {
    let logs = Recorder<String>()
    let finished = Recorder<String>()

    func stepStarted(_ record: StepRecord) {}
    func stepFinished(_ record: StepRecord) { finished.record("\(record.id) \(record.status.rawValue)") }
    func log(_ message: String, step id: String) { logs.record(message) }
}

/// A workflow run in a test: compiles `source` (which must check), runs it
/// with the scripted runner on a manual clock.
struct ExecutorHarness {
    let clock = ManualClock()
    let runner: ScriptedRunner
    let observer = CollectingObserver()
    let executor: WorkflowExecutor
    let result: Promise<RunResult>

    /// `targets`: as `promise-run FILE TARGET...` names them (none: an
    /// ordinary run).
    init(
        _ source: String, jobs: Int = 8, keepGoing: Bool = false, variables: [String: String] = [:],
        environment: [String: String] = [:], timeout: Duration? = nil, targets: [String] = []
    ) {
        runner = ScriptedRunner(clock: clock)
        let compiled = WorkflowCompiler.compile(SourceFile(path: "test.workflow", bytes: Array(source.utf8)))
        guard let workflow = compiled.workflow else {
            fatalError("test workflow does not check: \(compiled.diagnostics)")
        }
        var selection: TargetSelection?
        if !targets.isEmpty {
            guard case .success(let made) = TargetSelection.make(workflow, targets: targets) else { fatalError("bad targets \(targets)") }
            selection = made
        }
        let configuration = ExecutionConfiguration(
            jobs: jobs, keepGoing: keepGoing, variableOverrides: variables, environment: environment,
            timeout: timeout, currentDirectory: "/tmp", clock: clock, selection: selection)
        executor = WorkflowExecutor(workflow: workflow, configuration: configuration, runner: runner, observer: observer)
        result = executor.run()
    }

    var outcome: RunResult? { result.outcome?.value }

    /// `id status` for every step, in workflow order.
    var statuses: [String] {
        outcome?.records.map { "\($0.id) \($0.status.rawValue)" } ?? []
    }

    func record(_ id: String) -> StepRecord? {
        outcome?.records.first { $0.id == id }
    }
}
