import Dispatch
import PromiseEngine
import WorkflowModel
import Synchronization
import RunnerSystem

/// Runs `http` steps for one runner: prepares the request on the calling
/// thread, then hands the exchange to the event loop that carries it
/// (`HTTPEngine`). Called on the loop thread itself, as the next request
/// of a foreach is once the previous one settled there, it starts at once,
/// with no hop.
final class HTTPClient: Sendable {
    private let configuration: StepsConfiguration
    private let loop: EventLoop
    private let engine: UncheckedBox<HTTPEngine>
    private let closed = Atomic<Bool>(false)
    /// A request was made: there is something on the loop to end.
    private let used = Atomic<Bool>(false)

    init(configuration: StepsConfiguration, loop: EventLoop = .shared) {
        self.configuration = configuration
        self.loop = loop
        engine = UncheckedBox(HTTPEngine(loop: loop, configuration: configuration, proxies: .fromProcess()))
    }

    deinit {
        guard used.load(ordering: .acquiring) else { return }
        let engine = self.engine
        loop.execute { engine.value.dispose() }
    }

    func run(_ step: ResolvedHTTPRequest, in context: StepContext) -> Promise<StepResult> {
        guard !closed.load(ordering: .acquiring) else { return .cancelled() }
        used.store(true, ordering: .releasing)
        let prepared: PreparedRequest
        do {
            prepared = try HTTPRequestBuilder.prepare(step, workingDirectory: context.workingDirectory,
                                                      configuration: configuration)
        } catch {
            return Promise(error: error)
        }
        let (promise, resolver) = Promise<StepResult>.pending()
        if resolver.isCancelRequested { return .cancelled() }
        let saveTarget = step.save.map { Paths.resolve($0, against: context.workingDirectory) }
        let engine = self.engine
        let exchange = UncheckedBox(HTTPExchange(step: step, prepared: prepared, resolver: resolver, engine: engine.value,
                                                 configuration: configuration, saveTarget: saveTarget,
                                                 onTransfer: context.transfer, cookies: context.cookies,
                                                 wire: context.wire))
        let loop = self.loop
        resolver.onCancel { loop.execute { exchange.value.cancel() } }
        if loop.inLoop {
            engine.value.begin(exchange.value)
        } else {
            loop.execute { engine.value.begin(exchange.value) }
        }
        // What follows a response (its step's records, statistics, the next
        // iteration's request) runs on the loop's thread, as it settles:
        // no hand-over to another thread and back at every request. A hop
        // per response cost a thread wake-up each way (6,700 context
        // switches for 10,000 GETs, against 10 now) and took a second core
        // from the server on the same machine. Heavy settling (a save, a
        // large body) still leaves the loop (HTTPExchange).
        return promise
    }

    /// Cancels every request in flight (each settles as cancelled) and
    /// refuses new ones.
    func invalidate() {
        closed.store(true, ordering: .releasing)
        // A run that sent no request leaves the loop's thread unstarted.
        guard used.load(ordering: .acquiring) else { return }
        let engine = self.engine
        loop.execute { engine.value.cancelAll() }
    }

    /// Requests in flight and HTTP/1.1 connections open, read on the loop.
    func counts() async -> (active: Int, connections: Int) {
        let engine = self.engine
        return await withCheckedContinuation { continuation in
            loop.execute { continuation.resume(returning: (engine.value.activeCount, engine.value.openConnections)) }
        }
    }
}
