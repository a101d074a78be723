import WorkflowModel

/// One request and its response: an `http` step makes one, and one more
/// per redirect it follows. A transport (HTTP/1.1 on the event loop, or
/// libcurl) carries it; the exchange decides what comes next.
///
/// Its fields live in one box, shared by copies until a copy changes one
/// (the exchange keeps the request, the transport and its hop each hold
/// it): a copy of eleven fields was a retain of each reference among them,
/// four times per request. Not `BoxedFields`, whose key-path reads cost
/// more here than the copies (StepRecord says how much).
struct HopRequest {
    /// The fields; changed only through a request that holds the box alone.
    private final class Fields {
        @exclusivity(unchecked) var method: String
        @exclusivity(unchecked) var url: RequestURL
        @exclusivity(unchecked) var headers: [(name: String, value: String)]
        @exclusivity(unchecked) var host: String?
        @exclusivity(unchecked) var body: RequestBody
        @exclusivity(unchecked) var tls: TLSSettings
        @exclusivity(unchecked) var proxy: String?
        @exclusivity(unchecked) var idleTimeout: Duration?
        @exclusivity(unchecked) var wire: (@Sendable (String) -> Void)?
        @exclusivity(unchecked) var transport: TransportSettings
        @exclusivity(unchecked) var wantsCertificate: Bool

        init(
            method: String, url: RequestURL, headers: [(name: String, value: String)], host: String?, body: RequestBody, tls: TLSSettings,
            proxy: String?, idleTimeout: Duration?, wire: (@Sendable (String) -> Void)?, transport: TransportSettings, wantsCertificate: Bool
        ) {
            self.method = method
            self.url = url
            self.headers = headers
            self.host = host
            self.body = body
            self.tls = tls
            self.proxy = proxy
            self.idleTimeout = idleTimeout
            self.wire = wire
            self.transport = transport
            self.wantsCertificate = wantsCertificate
        }

        func copy() -> Fields {
            Fields(
                method: method, url: url, headers: headers, host: host, body: body, tls: tls, proxy: proxy, idleTimeout: idleTimeout, wire: wire,
                transport: transport, wantsCertificate: wantsCertificate)
        }
    }

    private var fields: Fields

    var method: String {
        get { fields.method }
        _modify {
            if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
            yield &fields.method
        }
    }

    var url: RequestURL {
        get { fields.url }
        _modify {
            if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
            yield &fields.url
        }
    }

    /// Every header to send, `Host` excepted (the transport writes it).
    var headers: [(name: String, value: String)] {
        get { fields.headers }
        _modify {
            if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
            yield &fields.headers
        }
    }

    /// The step's own `Host` (a virtual host), sent instead of the URL's
    /// authority; empty: no `Host` at all. Nil: the authority.
    var host: String? {
        get { fields.host }
        _modify {
            if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
            yield &fields.host
        }
    }

    var body: RequestBody {
        get { fields.body }
        _modify {
            if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
            yield &fields.body
        }
    }

    var tls: TLSSettings {
        get { fields.tls }
        _modify {
            if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
            yield &fields.tls
        }
    }

    /// The proxy to go through (`http://host:port`), when one applies.
    var proxy: String? {
        get { fields.proxy }
        _modify {
            if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
            yield &fields.proxy
        }
    }

    /// No byte for this long fails the hop with kind `timeout`.
    var idleTimeout: Duration? {
        get { fields.idleTimeout }
        _modify {
            if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
            yield &fields.idleTimeout
        }
    }

    /// `-vv`: hears the request as the transport sends it.
    var wire: (@Sendable (String) -> Void)? {
        get { fields.wire }
        _modify {
            if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
            yield &fields.wire
        }
    }

    /// Connect timeout, address overrides, a Unix socket, the HTTP version.
    var transport: TransportSettings {
        get { fields.transport }
        _modify {
            if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
            yield &fields.transport
        }
    }

    /// The step reads the server's certificate (`expect certificate`): the
    /// hop gathers it, on a connection of its own (a reused one has no
    /// handshake to read it from).
    var wantsCertificate: Bool {
        get { fields.wantsCertificate }
        _modify {
            if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
            yield &fields.wantsCertificate
        }
    }

    init(
        method: String, url: RequestURL, headers: [(name: String, value: String)], host: String? = nil, body: RequestBody,
        tls: TLSSettings, proxy: String?, idleTimeout: Duration?, wire: (@Sendable (String) -> Void)? = nil,
        transport: TransportSettings = TransportSettings(), wantsCertificate: Bool = false
    ) {
        fields = Fields(
            method: method, url: url, headers: headers, host: host, body: body, tls: tls, proxy: proxy, idleTimeout: idleTimeout, wire: wire,
            transport: transport, wantsCertificate: wantsCertificate)
    }
}

/// How a request travels: `connect-timeout`, `resolve`,
/// `unix-socket`, `http-version` (or `--http-version`).
/// See docs/steps.md, 'For Hurl users'.
struct TransportSettings: Sendable, Hashable {
    var connectTimeout: Duration?
    var resolve: [ResolveMapping] = []
    var unixSocket: String?
    var httpVersion: HTTPVersion?

    /// The address `resolve` gives a host and port, if it gives one.
    func address(for host: String, port: Int) -> String? {
        let host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return resolve.last { $0.host == host.lowercased() && $0.port == port }?.address
    }

    /// How connections to `url` are made, as part of the pool's key.
    func route(for url: RequestURL) -> String {
        if let unixSocket { return "unix:" + unixSocket }
        if let address = address(for: url.host, port: url.origin.port) { return "address:" + address }
        return ""
    }
}

/// What a request sends as its body.
enum RequestBody: Sendable {
    case none
    case bytes([UInt8])
    /// `body file PATH`: streamed from the file, `size` bytes.
    case file(path: String, size: Int64)

    var length: Int64? {
        switch self {
        case .none: return nil
        case .bytes(let bytes): return Int64(bytes.count)
        case .file(_, let size): return size
        }
    }
}

/// Certificate checks and client certificates for HTTPS.
struct TLSSettings: Sendable, Hashable {
    /// Do not verify the server's certificate (`insecure`, `--insecure`).
    var insecure = false
    /// Trust the authorities in this PEM file (`cacert`, `--cacert`).
    var caFile: String?
    /// A client certificate and its key, PEM (`cert`, `key`).
    var certificateFile: String?
    var keyFile: String?
}

/// When the phases of a hop ended, from its start.
struct HopTimings {
    var dns: Duration = .zero
    var connect: Duration = .zero
    var tls: Duration = .zero
    var firstByte: Duration = .zero
}

/// How a hop ended.
enum HopEnd {
    /// The whole response arrived.
    case complete(HopTimings, version: String, certificate: ServerCertificate? = nil)
    /// The transport failed: kind `network` or `timeout`, in words.
    case failed(HopFailure)
    /// The delegate asked to stop (`hopHead` or `hopBody` returned false).
    case stopped
}

/// Why a hop failed.
struct HopFailure: Error {
    enum Kind {
        case network
        /// The idle timeout: no byte for too long.
        case timeout
    }

    var kind: Kind
    var message: String

    static func network(_ message: String) -> HopFailure { HopFailure(kind: .network, message: message) }
}

/// Hears a hop's response, on the event loop thread. After `hopEnded`,
/// nothing more is called.
protocol HopDelegate: AnyObject {
    /// The final response's head (interim `1xx` ones are skipped). Return
    /// false to stop: the hop then ends with `.stopped`.
    func hopHead(_ head: ResponseHead) -> Bool
    /// A piece of the body, as it came on the wire (not yet decoded).
    /// Return false to stop.
    func hopBody(_ bytes: UnsafeRawBufferPointer) -> Bool
    func hopEnded(_ end: HopEnd)
}

/// A hop under way. `cancel` (loop thread) stops it at once: its delegate
/// hears nothing more and its connection is closed.
protocol HopHandle: AnyObject {
    func cancel()
}

/// Carries hops. Called on the event loop thread only.
protocol HopTransport: AnyObject {
    func start(_ request: HopRequest, delegate: any HopDelegate) -> any HopHandle
    /// Closes every connection and stops every hop (their delegates hear
    /// `.failed`); for the end of a run.
    func closeAll()
}
