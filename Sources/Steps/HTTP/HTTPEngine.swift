import RunnerSystem
import WorkflowModel

/// The HTTP state of one runner, on the event loop thread: the two
/// transports (made at first use), the run's cookie store, the proxies,
/// and the exchanges under way (so that the end of the run can cancel
/// them).
///
/// Its stored properties skip the run-time exclusivity check
/// (`@exclusivity(unchecked)`): one thread uses them, none is accessed
/// twice at once, and the checks were about 5% of an HTTP request's
/// instructions in the open model.
final class HTTPEngine {
    let loop: EventLoop
    let configuration: StepsConfiguration
    let proxies: ProxySettings
    @exclusivity(unchecked) var cookies = CookieJar()
    @exclusivity(unchecked) private var http1: HTTP1Transport?
    /// libcurl's transports: one for HTTP/1.1 only (`http-version 1.1`),
    /// one for the rest. libcurl would carry a request that asks for HTTP/2
    /// on a kept HTTP/1.1 connection; apart, each asks for its own.
    @exclusivity(unchecked) private var curl: [Bool: Result<CurlTransport, HopFailure>] = [:]
    @exclusivity(unchecked) private var active: [ObjectIdentifier: HTTPExchange] = [:]
    /// After `cancelAll`: nothing new starts.
    @exclusivity(unchecked) private(set) var isClosed = false

    init(loop: EventLoop, configuration: StepsConfiguration, proxies: ProxySettings) {
        self.loop = loop
        self.configuration = configuration
        self.proxies = proxies
    }

    /// Starts an exchange, or cancels it when the engine is closed.
    func begin(_ exchange: HTTPExchange) {
        guard !exchange.isOver else { return }
        guard !isClosed else {
            exchange.cancel()
            return
        }
        active[ObjectIdentifier(exchange)] = exchange
        exchange.start()
    }

    /// An exchange is over (it calls this itself).
    func ended(_ exchange: HTTPExchange) {
        active.removeValue(forKey: ObjectIdentifier(exchange))
    }

    /// HTTP/1.1 on the loop for plain `http://` without a proxy; libcurl
    /// for HTTPS (and HTTP/2, also over `http://` when asked for) and for
    /// proxies.
    func transport(for request: HopRequest) -> Result<any HopTransport, HopFailure> {
        if !request.url.isSecure && request.proxy == nil && request.transport.httpVersion != .http2 {
            if let http1 { return .success(http1) }
            let made = HTTP1Transport(loop: loop)
            http1 = made
            return .success(made)
        }
        let onlyHTTP1 = request.transport.httpVersion == .http1_1
        if let made = curl[onlyHTTP1] { return made.map { $0 } }
        let made = CurlTransport.make(loop: loop)
        if case .success(let transport) = made {
            let perHost = max(1, configuration.httpConnections)
            transport.limitConnections(perHost: perHost)
        }
        curl[onlyHTTP1] = made
        return made.map { $0 }
    }

    /// Cancels every exchange under way, closes every connection, and
    /// refuses what comes later.
    func cancelAll() {
        isClosed = true
        for exchange in Array(active.values) { exchange.cancel() }
        active.removeAll()
        http1?.closeAll()
        for case .success(let transport) in curl.values { transport.closeAll() }
    }

    /// Frees everything (the runner is going away).
    func dispose() {
        cancelAll()
        for case .success(let transport) in curl.values { transport.dispose() }
        curl = [:]
        http1 = nil
    }

    /// Requests under way.
    var activeCount: Int { active.count }

    /// Connections the HTTP/1.1 transport holds open.
    var openConnections: Int { http1?.openCount ?? 0 }
}
