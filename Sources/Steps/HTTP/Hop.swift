import WorkflowModel

/// One request and its response: an `http` step makes one, and one more
/// per redirect it follows. A transport (HTTP/1.1 on the event loop, or
/// libcurl) carries it; the exchange decides what comes next.
///
/// Its fields live in one box, shared by copies until a copy changes one
/// (the exchange keeps the request, the transport and its hop each hold
/// it): a copy of eleven fields was a retain of each reference among them,
/// four times per request. Its fields are read through a key-path
/// subscript, as `BoxedFields` does, but only in this module, where the
/// optimizer turns a literal key path into a direct access (across modules
/// it cannot: StepRecord says what that cost).
@dynamicMemberLookup
struct HopRequest {
    /// The request's fields, read and changed as the request's own
    /// (`request.method`) through the subscript below.
    struct Values {
        var method: String
        var url: RequestURL

        /// Every header to send, `Host` excepted (the transport writes it).
        var headers: [(name: String, value: String)]

        /// The step's own `Host` (a virtual host), sent instead of the URL's
        /// authority; empty: no `Host` at all. Nil: the authority.
        var host: String?

        var body: RequestBody
        var tls: TLSSettings

        /// The proxy to go through (`http://host:port`), when one applies.
        var proxy: String?

        /// No byte for this long fails the hop with kind `timeout`.
        var idleTimeout: Duration?

        /// `-vv`: hears the request as the transport sends it.
        var wire: (@Sendable (String) -> Void)?

        /// Connect timeout, address overrides, a Unix socket, the HTTP version.
        var transport: TransportSettings

        /// The step reads the server's certificate (`expect certificate`): the
        /// hop gathers it, on a connection of its own (a reused one has no
        /// handshake to read it from).
        var wantsCertificate: Bool
    }

    /// The values; changed only through a request that holds the box alone.
    private final class Box {
        @exclusivity(unchecked) var values: Values

        init(_ values: Values) { self.values = values }
    }

    private var box: Box

    /// A field of the request: read from the shared box; changed in a box
    /// of this request's own (copied first when another request shares
    /// it). Within this module the key path is folded into a direct access.
    subscript<Value>(dynamicMember field: WritableKeyPath<Values, Value>) -> Value {
        @inline(__always) get { box.values[keyPath: field] }
        @inline(__always) _modify {
            if !isKnownUniquelyReferenced(&box) { box = Box(box.values) }
            yield &box.values[keyPath: field]
        }
    }

    init(
        method: String, url: RequestURL, headers: [(name: String, value: String)], host: String? = nil, body: RequestBody,
        tls: TLSSettings, proxy: String?, idleTimeout: Duration?, wire: (@Sendable (String) -> Void)? = nil,
        transport: TransportSettings = TransportSettings(), wantsCertificate: Bool = false
    ) {
        box = Box(
            Values(
                method: method, url: url, headers: headers, host: host, body: body, tls: tls, proxy: proxy, idleTimeout: idleTimeout,
                wire: wire, transport: transport, wantsCertificate: wantsCertificate))
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
    /// How long the response's last byte had been in the kernel when it
    /// was read (the kernel's receive stamp): the hop ended that long ago.
    var held: Duration = .zero
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
