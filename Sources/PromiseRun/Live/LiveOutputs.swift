import CommandLineOptions
import PromiseEngine
import Reports
import RunnerSystem
import WorkflowRun

/// `--events` and `--metrics-listen`: what lets others watch a
/// run while it goes. Set up before anything runs (an address that cannot
/// be bound or a file that cannot be written is exit 2), told of each run
/// (`--watch` runs several), and closed at the end: the events written
/// out, the endpoint kept open 2 more seconds, so that one more scrape
/// sees the final counts.
/// See docs/command.md, 'Watching a run'.
final class LiveOutputs: Sendable {
    let events: EventStream?
    let server: LoopHTTPServer?
    private let metrics: MetricsSlot

    private init(events: EventStream?, server: LoopHTTPServer?, metrics: MetricsSlot) {
        self.events = events
        self.server = server
        self.metrics = metrics
    }

    /// nil when neither option was given.
    static func open(_ options: RunOptions) -> Result<LiveOutputs?, LiveOutputError> {
        guard options.events != nil || options.metricsListen != nil else { return .success(nil) }
        let slot = MetricsSlot()
        var server: LoopHTTPServer?
        if let address = options.metricsListen {
            switch LoopHTTPServer.listen(
                address,
                respond: { _, path in
                    guard path == "/metrics" else { return .init(status: 404, body: "not found; the metrics are at /metrics\n") }
                    let snapshot =
                        slot.current.withLock { $0 }?.snapshot()
                        ?? RunMetrics.Snapshot(workflow: nil, labels: [], running: 0, status: "running")
                    return .init(status: 200, contentType: MetricsExposition.contentType, body: MetricsExposition.render(snapshot))
                })
            {
            case .success(let made): server = made
            case .failure(let error): return .failure(LiveOutputError(message: "\(Option.metricsListen.spec.long): \(error)"))
            }
        }
        var events: EventStream?
        if let path = options.events {
            switch EventStream.open(path) {
            case .success(let made): events = made
            case .failure(let error):
                if let server { _ = server.close(after: .zero) }
                return .failure(error)
            }
        }
        let live = LiveOutputs(events: events, server: server, metrics: slot)
        events?.startFlushing()
        return .success(live)
    }

    /// The observers of a run of `workflow` from `file`, told it started.
    func observers(workflow: String, file: String, mask: @escaping @Sendable (String) -> String) -> [any ExecutionObserver] {
        var observers: [any ExecutionObserver] = []
        if server != nil {
            let made = RunMetrics(workflow: workflow)
            // A run of `--watch` starts its counts again.
            metrics.current.withLock { $0 = made }
            observers.append(made)
        }
        if let events {
            events.masking(with: mask)
            events.runStarted(workflow: workflow, file: file)
            observers.append(events)
        }
        return observers
    }

    /// A run ended with `result` and `exitCode`.
    func runEnded(_ result: RunResult, exitCode: Int32) {
        metrics.current.withLock { $0 }?.ended(result.status.reported)
        events?.runEnded(result, exitCode: exitCode)
        events?.flush()
    }

    /// The end: the events closed, the endpoint closed 2 seconds later
    /// (it answers scrapes meanwhile, with the final counts).
    func close() async {
        events?.close()
        if let server { _ = await server.close(after: .seconds(2)).settled }
    }
}

/// The metrics of the run going on, which the endpoint (made before
/// any run) reads.
private final class MetricsSlot: Sendable {
    let current = Lock<RunMetrics?>(nil)
}
