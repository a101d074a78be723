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
        let order = HTTPOrder(step: step, prepared: prepared)
        let start = Start(
            order: order, resolver: resolver, engine: engine, redirects: configuration.defaultRedirects,
            bodyLimit: configuration.bodyLimit, idleTimeout: configuration.httpIdleTimeout, saveTarget: saveTarget,
            onTransfer: context.transfer, cookies: context.cookies, wire: context.wire, started: .now)
        // What follows a response (its step's records, statistics, the next
        // iteration's request) runs on the loop's thread, as it settles:
        // no hand-over to another thread and back at every request. A hop
        // per response cost a thread wake-up each way (6,700 context
        // switches for 10,000 GETs, against 10 now) and took a second core
        // from the server on the same machine. Heavy settling (a save, a
        // large body) still leaves the loop (HTTPExchange).
        if loop.inLoop {
            start.begin(on: loop)
        } else {
            // The exchange is made on the loop, where it lives and reaches
            // the engine; its time runs from now.
            let loop = self.loop
            loop.execute { start.begin(on: loop) }
        }
        return promise
    }

    /// What an exchange is made of, carried to the loop.
    private struct Start: Sendable {
        var order: HTTPOrder
        var resolver: Resolver<StepResult>
        var engine: LoopBound<HTTPEngine>
        var redirects: Int
        var bodyLimit: Int
        var idleTimeout: Duration?
        var saveTarget: String?
        var onTransfer: (@Sendable (Int64, Int64?) -> Void)?
        var cookies: CookieStore?
        var wire: (@Sendable (String) -> Void)?
        var started: ContinuousClock.Instant

        /// Makes the exchange and starts it; on the loop's thread.
        func begin(on loop: EventLoop) {
            let exchange = HTTPExchange(
                order: order, resolver: resolver, engine: engine.value, redirects: redirects, bodyLimit: bodyLimit,
                idleTimeout: idleTimeout, saveTarget: saveTarget, onTransfer: onTransfer, cookies: cookies, wire: wire,
                started: started)
            let bound = LoopBound(exchange, loop: loop)
            resolver.onCancel { loop.execute { bound.value.cancel() } }
            // Cancelled on the way here: over before it starts, so `begin`
            // sends nothing (the cancel queued above then finds it over).
            if resolver.isCancelRequested { exchange.cancel() }
            engine.value.begin(exchange)
        }
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
