import Dispatch
import PromiseEngine
import RunnerSystem
import Synchronization
import WorkflowModel

/// Runs `http` steps for one runner: prepares the request on the calling
/// thread, then hands the exchange to the event loop that carries it
/// (`HTTPEngine`). Called on the loop thread itself, as the next request
/// of a foreach is once the previous one settled there, it starts at once,
/// with no hop.
final class HTTPClient: Sendable {
    private let configuration: StepsConfiguration
    private let loop: EventLoop
    private let engine: LoopBound<HTTPEngine>
    private let closed = Atomic<Bool>(false)
    /// A request was made: there is something on the loop to end.
    private let used = Atomic<Bool>(false)

    init(configuration: StepsConfiguration, loop: EventLoop = .shared) {
        self.configuration = configuration
        self.loop = loop
        engine = LoopBound(handingOver: HTTPEngine(loop: loop, configuration: configuration, proxies: .fromProcess()), to: loop)
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
            prepared = try HTTPRequestBuilder.prepare(
                step, workingDirectory: context.workingDirectory,
                configuration: configuration)
        } catch {
            return Promise(error: error)
        }
        let (promise, resolver) = Promise<StepResult>.pending()
        if resolver.isCancelRequested { return .cancelled() }
        let saveTarget = step.save.map { Paths.resolve($0, against: context.workingDirectory) }
        let engine = self.engine
        let configuration = self.configuration
        let (onTransfer, cookies, wire) = (context.transfer, context.cookies, context.wire)
        // The exchange is made on the loop, where it lives and reaches the
        // engine; the request prepared here goes there with it, and its
        // time runs from now.
        let request = LoopBound(handingOver: prepared, to: loop)
        let started = ContinuousClock.now
        let loop = self.loop
        let begin: @Sendable () -> Void = {
            let exchange = LoopBound(
                HTTPExchange(
                    step: step, prepared: request.value, resolver: resolver, engine: engine.value,
                    configuration: configuration, saveTarget: saveTarget, onTransfer: onTransfer,
                    cookies: cookies, wire: wire, started: started), loop: loop)
            resolver.onCancel { loop.execute { exchange.value.cancel() } }
            // Cancelled on the way here: over before it starts, so `begin`
            // sends nothing (the cancel queued above then finds it over).
            if resolver.isCancelRequested { exchange.value.cancel() }
            engine.value.begin(exchange.value)
        }
        if loop.inLoop {
            begin()
        } else {
            loop.execute(begin)
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
