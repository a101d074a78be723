package import WorkflowModel

/// The limits and delays of a `SystemStepRunner`. The defaults are the
/// spec's; the CLI sets `httpConnections` from `--http-connections`.
package struct StepsConfiguration: Sendable, Hashable {
    /// HTTP requests in flight at once (`--http-connections`); the
    /// executor's slots enforce it, and libcurl's connections per host
    /// follow it.
    package var httpConnections: Int
    /// Bytes of stdout and of stderr kept in memory per process: the tail
    /// of a longer stream (`CapturedText.truncated` says so).
    package var outputTailLimit: Int
    /// Between SIGTERM and SIGKILL when a process step is cancelled.
    package var killGracePeriod: Duration
    /// The largest response body kept in memory; a larger one fails the
    /// step (use `save PATH` to stream it to a file). Also the largest file
    /// `file read` reads.
    package var bodyLimit: Int
    /// Redirects followed when a step does not say (`redirects N`).
    package var defaultRedirects: Int
    /// How long a process step keeps reading its pipes after its main
    /// process exited, while processes it started in the background hold
    /// them open (`sh "server &"`). Those processes then run on, without
    /// their output, until `shutdown`/`killAll`.
    package var outputLinger: Duration
    /// No byte from the server for this long fails an HTTP request with
    /// kind `timeout`; nil: none, deadlines are the executor's.
    package var httpIdleTimeout: Duration?
    /// `--insecure`: no HTTPS step verifies the server's certificate.
    package var insecure: Bool
    /// `--cacert PATH`: the authorities HTTPS steps trust (absolute path),
    /// unless a step names its own.
    package var caCertificate: String?
    /// `--http-version 1.1|2`: the HTTP version http steps ask for, unless
    /// a step names its own.
    package var httpVersion: HTTPVersion?

    package init(
        httpConnections: Int = 64, outputTailLimit: Int = 1 << 20, killGracePeriod: Duration = .seconds(5),
        bodyLimit: Int = 64 << 20, defaultRedirects: Int = 10, outputLinger: Duration = .milliseconds(500),
        httpIdleTimeout: Duration? = nil, insecure: Bool = false, caCertificate: String? = nil, httpVersion: HTTPVersion? = nil
    ) {
        self.httpVersion = httpVersion
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
