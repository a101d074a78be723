package import JSON
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
/// Its fields (`StepResult.Fields`) live in one `CopyOnWrite` box and
/// read and write as the result's own (`result.stdout`,
/// `result.captures["id"] = ...`).
@usableFromInline
package struct StepResult: Sendable, BoxedFields {
    /// The fields, each nil or empty where the step kind has none.
    @usableFromInline
    package struct Fields: Sendable {
        /// A process's standard output (its tail, when longer than the limit).
        package var stdout: CapturedText?
        /// A process's standard error (its tail, when longer than the limit).
        package var stderr: CapturedText?
        /// A process's exit code (nil when it was killed by a signal).
        package var exitCode: Int?
        /// The signal that ended a process, if one did.
        package var terminatingSignal: Int?
        /// An HTTP response's status.
        package var status: Int?
        /// An HTTP response's headers, in order, names as received; a name may repeat.
        package var headers: HeaderList
        /// An HTTP response's body, decoded as text (empty when saved to a file).
        package var body: CapturedText?
        /// A file step's path.
        package var path: String?
        /// `file read`'s content.
        package var content: String?
        /// How long the step's last attempt took.
        package var duration: Duration
        /// `capture NAME = ...` values.
        package var captures: [String: String]
        /// The values of captures that are not text (a list, an object, a
        /// number), as JSON: what a filter reads (`{{r.items | count}}`);
        /// `captures` holds their text.
        package var capturedValues: [String: JSONDocument] = [:]
        /// An http step's final URL, redirects, version, timings and cookies.
        package var http: HTTPExchangeInfo?
        /// The Slurm job that ran the step, nil on this machine.
        package var slurmJob: String?
        /// How long the step's outcome had already been there when the
        /// runner took it: a response whose last byte waited in the
        /// kernel for the event loop's next wake-up (it defers reads under
        /// a fast schedule). The step ended that long before it was read;
        /// its latency and record say so.
        package var settledEarlier: Duration = .zero
    }

    @usableFromInline
    package var storage: CopyOnWrite<Fields>

    package init(
        stdout: CapturedText? = nil, stderr: CapturedText? = nil, exitCode: Int? = nil,
        terminatingSignal: Int? = nil, status: Int? = nil, headers: HeaderList = [],
        body: CapturedText? = nil, path: String? = nil, content: String? = nil,
        duration: Duration = .zero, captures: [String: String] = [:], http: HTTPExchangeInfo? = nil
    ) {
        storage = CopyOnWrite(
            Fields(
                stdout: stdout, stderr: stderr, exitCode: exitCode, terminatingSignal: terminatingSignal, status: status,
                headers: headers, body: body, path: path, content: content, duration: duration, captures: captures,
                http: http, slurmJob: nil))
    }

    /// A response header, looked up case-insensitively: every value of
    /// that name in the order they came, joined with `, ` (RFC 9110 §5.3,
    /// what `curl -i`'s lines say together); nil when none came.
    package func header(_ name: String) -> String? {
        let values = storage.fields.headers.values(named: name.lowercased())
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }
}
