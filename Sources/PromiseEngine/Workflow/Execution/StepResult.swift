import PromiseEngine

/// Text a step produced (a process's stdout or stderr, a response body),
/// as much as was kept in memory.
package struct CapturedText: Sendable, Hashable {
    /// The kept text: all of it, or its tail when `truncated`.
    package var text: String
    /// Whether the beginning was dropped to stay within the limit.
    package var truncated: Bool
    /// How many bytes there were in all.
    package var totalBytes: Int

    package init(text: String, truncated: Bool = false, totalBytes: Int? = nil) {
        self.text = text
        self.truncated = truncated
        self.totalBytes = totalBytes ?? text.utf8.count
    }
}

/// What a finished step produced: the values `{{label.field}}` reads.
///
/// A value type whose fields live in one shared, copy-on-write box: a
/// result passes through several promises on its way to the values and
/// the records, and each of those copies is one reference count.
package struct StepResult: Sendable {
    private final class Storage: @unchecked Sendable {
        // @unchecked: a Storage is mutated only through a StepResult that
        // holds the one reference to it (`isKnownUniquelyReferenced`), and
        // is never changed once shared.
        var stdout: CapturedText?
        var stderr: CapturedText?
        var exitCode: Int?
        var terminatingSignal: Int?
        var status: Int?
        var headers: [(name: String, value: String)]
        var body: CapturedText?
        var path: String?
        var content: String?
        var duration: Duration
        var captures: [String: String]
        var http: HTTPExchangeInfo?
        /// The Slurm job id of a step run on a cluster.
        var slurmJob: String?

        init(stdout: CapturedText?, stderr: CapturedText?, exitCode: Int?, terminatingSignal: Int?, status: Int?, headers: [(name: String, value: String)], body: CapturedText?, path: String?, content: String?, duration: Duration, captures: [String: String], http: HTTPExchangeInfo?) {
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

        func copy() -> Storage {
            let copy = Storage(stdout: stdout, stderr: stderr, exitCode: exitCode, terminatingSignal: terminatingSignal, status: status, headers: headers, body: body, path: path, content: content, duration: duration, captures: captures, http: http)
            copy.slurmJob = slurmJob
            return copy
        }
    }

    private var storage: Storage

    private mutating func unique() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    /// A process's standard output (its tail, when longer than the limit).
    package var stdout: CapturedText? {
        get { storage.stdout }
        set { unique().stdout = newValue }
    }

    /// A process's standard error (its tail, when longer than the limit).
    package var stderr: CapturedText? {
        get { storage.stderr }
        set { unique().stderr = newValue }
    }

    /// A process's exit code (nil when it was killed by a signal).
    package var exitCode: Int? {
        get { storage.exitCode }
        set { unique().exitCode = newValue }
    }

    /// The signal that ended a process, if one did.
    package var terminatingSignal: Int? {
        get { storage.terminatingSignal }
        set { unique().terminatingSignal = newValue }
    }

    /// An HTTP response's status.
    package var status: Int? {
        get { storage.status }
        set { unique().status = newValue }
    }

    /// An HTTP response's headers, in order, names as received; a name may repeat.
    package var headers: [(name: String, value: String)] {
        get { storage.headers }
        set { unique().headers = newValue }
    }

    /// An HTTP response's body, decoded as text (empty when saved to a file).
    package var body: CapturedText? {
        get { storage.body }
        set { unique().body = newValue }
    }

    /// A file step's path.
    package var path: String? {
        get { storage.path }
        set { unique().path = newValue }
    }

    /// `file read`'s content.
    package var content: String? {
        get { storage.content }
        set { unique().content = newValue }
    }

    /// How long the step's last attempt took.
    package var duration: Duration {
        get { storage.duration }
        set { unique().duration = newValue }
    }

    /// `capture NAME = ...` values.
    package var captures: [String: String] {
        get { storage.captures }
        set { unique().captures = newValue }
    }

    /// An http step's final URL, redirects, version, timings and cookies.
    package var http: HTTPExchangeInfo? {
        get { storage.http }
        set { unique().http = newValue }
    }

    /// The Slurm job that ran the step (spec §14), nil on this machine.
    package var slurmJob: String? {
        get { storage.slurmJob }
        set { unique().slurmJob = newValue }
    }

    package init(
        stdout: CapturedText? = nil, stderr: CapturedText? = nil, exitCode: Int? = nil,
        terminatingSignal: Int? = nil, status: Int? = nil, headers: [(name: String, value: String)] = [],
        body: CapturedText? = nil, path: String? = nil, content: String? = nil,
        duration: Duration = .zero, captures: [String: String] = [:], http: HTTPExchangeInfo? = nil
    ) {
        storage = Storage(stdout: stdout, stderr: stderr, exitCode: exitCode, terminatingSignal: terminatingSignal, status: status, headers: headers, body: body, path: path, content: content, duration: duration, captures: captures, http: http)
    }

    /// A response header, looked up case-insensitively (the first of that name).
    package func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }
}
