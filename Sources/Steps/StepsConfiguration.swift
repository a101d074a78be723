/// The limits and delays of a `SystemStepRunner`. The defaults are the
/// spec's; the CLI sets `httpConnections` from `--http-connections`.
public struct StepsConfiguration: Sendable, Hashable {
    /// HTTP requests in flight at once (`--http-connections`); the
    /// executor's slots enforce it, and libcurl's connections per host
    /// follow it.
    public var httpConnections: Int
    /// Bytes of stdout and of stderr kept in memory per process: the tail
    /// of a longer stream (`CapturedText.truncated` says so).
    public var outputTailLimit: Int
    /// Between SIGTERM and SIGKILL when a process step is cancelled.
    public var killGracePeriod: Duration
    /// The largest response body kept in memory; a larger one fails the
    /// step (use `save PATH` to stream it to a file). Also the largest file
    /// `file read` reads.
    public var bodyLimit: Int
    /// Redirects followed when a step does not say (`redirects N`).
    public var defaultRedirects: Int
    /// How long a process step keeps reading its pipes after its main
    /// process exited, while processes it started in the background hold
    /// them open (`sh "server &"`). Those processes then run on, without
    /// their output, until `shutdown`/`killAll`.
    public var outputLinger: Duration
    /// No byte from the server for this long fails an HTTP request with
    /// kind `timeout`; nil: none, deadlines are the executor's.
    public var httpIdleTimeout: Duration?
    /// `--insecure`: no HTTPS step verifies the server's certificate.
    public var insecure: Bool
    /// `--cacert PATH`: the authorities HTTPS steps trust (absolute path),
    /// unless a step names its own.
    public var caCertificate: String?

    public init(httpConnections: Int = 64, outputTailLimit: Int = 1 << 20, killGracePeriod: Duration = .seconds(5),
                bodyLimit: Int = 64 << 20, defaultRedirects: Int = 10, outputLinger: Duration = .milliseconds(500),
                httpIdleTimeout: Duration? = nil, insecure: Bool = false, caCertificate: String? = nil) {
        self.httpConnections = httpConnections
        self.outputTailLimit = outputTailLimit
        self.killGracePeriod = killGracePeriod
        self.bodyLimit = bodyLimit
        self.defaultRedirects = defaultRedirects
        self.outputLinger = outputLinger
        self.httpIdleTimeout = httpIdleTimeout
        self.insecure = insecure
        self.caCertificate = caCertificate
    }
}
