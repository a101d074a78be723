/// Text a step produced (a process's stdout or stderr, a response body),
/// as much as was kept in memory.
public struct CapturedText: Sendable, Hashable {
    /// The kept text: all of it, or its tail when `truncated`.
    public var text: String
    /// Whether the beginning was dropped to stay within the limit.
    public var truncated: Bool
    /// How many bytes there were in all.
    public var totalBytes: Int

    public init(text: String, truncated: Bool = false, totalBytes: Int? = nil) {
        self.text = text
        self.truncated = truncated
        self.totalBytes = totalBytes ?? text.utf8.count
    }
}

/// What a finished step produced: the values `{{label.field}}` reads.
public struct StepResult: Sendable {
    public var stdout: CapturedText?
    public var stderr: CapturedText?
    /// A process's exit code (nil when it was killed by a signal).
    public var exitCode: Int?
    /// The signal that ended a process, if one did.
    public var terminatingSignal: Int?
    /// An HTTP response's status, headers (in order, names as received) and body.
    public var status: Int?
    public var headers: [(name: String, value: String)]
    public var body: CapturedText?
    /// A file step's path, `file read`'s content.
    public var path: String?
    public var content: String?
    public var duration: Duration
    /// `capture NAME = ...` values.
    public var captures: [String: String]
    /// An http step's final URL, redirects, version, timings and cookies.
    public var http: HTTPExchangeInfo?

    public init(
        stdout: CapturedText? = nil, stderr: CapturedText? = nil, exitCode: Int? = nil,
        terminatingSignal: Int? = nil, status: Int? = nil, headers: [(name: String, value: String)] = [],
        body: CapturedText? = nil, path: String? = nil, content: String? = nil,
        duration: Duration = .zero, captures: [String: String] = [:], http: HTTPExchangeInfo? = nil
    ) {
        self.stdout = stdout
        self.stderr = stderr
        self.exitCode = exitCode
        self.terminatingSignal = terminatingSignal
        self.status = status
        self.headers = headers
        self.body = body
        self.path = path
        self.content = content
        self.duration = duration
        self.captures = captures
        self.http = http
    }

    /// A response header, looked up case-insensitively (the first of that name).
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }
}
