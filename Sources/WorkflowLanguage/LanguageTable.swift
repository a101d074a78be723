import WorkflowModel

/// The words of the workflow language, described once: statements, step
/// and group kinds, attributes (which steps take them, in `fmt`'s order),
/// file operations and expectation subjects, each with a one-line doc. The
/// parser's did-you-mean and its checks of which step takes what, `fmt`'s
/// order, and the editor grammars (kept in step by a test) read it; the
/// language server's completion and hover will too.
/// See docs/language.md, 'Editors'.
package enum LanguageTable {
    /// A word and what it means, in a line.
    package struct Word: Sendable {
        package var name: String
        package var doc: String
    }

    /// An attribute: which step kinds take it (`group` for groups), its doc.
    package struct Attribute: Sendable {
        package var name: String
        package var takenBy: Set<String>
        package var doc: String
    }

    package static let stepKinds: [Word] = [
        Word(name: "sh", doc: "runs a command with /bin/sh -c"),
        Word(name: "exec", doc: "runs a program with its arguments, no shell"),
        Word(name: "http", doc: "sends an HTTP request: http METHOD \"URL\""),
        Word(name: "file", doc: "a file operation: write, append, read, copy, move, delete, mkdir, exists"),
        Word(name: "sleep", doc: "waits for a duration"),
        Word(name: "log", doc: "prints a message, values filled in"),
        Word(name: "fail", doc: "fails the chain with a message"),
        Word(name: "rethrow", doc: "passes the caught failure on (inside catch)"),
    ]

    /// Every kind of group (the model's `GroupKind`), with its doc.
    package static let groupKinds: [Word] = GroupKind.allCases.map { kind in
        let doc: String
        switch kind {
        case .sequence: doc = "runs its statements one after another, as one step of its chain"
        case .parallel: doc = "runs its lanes at once: parallel [limit N] [rate R] [keep-going]"
        case .race: doc = "the first lane to settle decides; the others are cancelled"
        case .any: doc = "the first lane to succeed wins; fails when every lane failed"
        case .foreach: doc = "runs its body once per item: foreach NAME in LIST [parallel [limit N] [rate R] [keep-going]]"
        case .repeat:
            doc =
                "runs its body N times, or for a duration: repeat N | repeat for D [parallel [limit N] [rate R] [keep-going]]; "
                + "{{repeat.index}} counts from 0"
        case .conditional: doc = "runs one branch: if COND { } else { }"
        }
        return Word(name: kind.rawValue, doc: doc)
    }

    /// Statements that are neither steps nor groups.
    package static let declarations: [Word] = [
        Word(name: "workflow", doc: "names the workflow (first line)"),
        Word(name: "var", doc: "declares a variable: var NAME = \"VALUE\""),
        Word(name: "secret", doc: "declares a variable masked as *** everywhere"),
        Word(name: "env", doc: "sets an environment variable for the process steps after it"),
        Word(name: "dotenv", doc: "loads a .env file into the environment of the steps after it"),
        Word(name: "include", doc: "includes another workflow file's statements"),
        Word(name: "catch", doc: "handles a failure of the chain before it (of some kinds)"),
        Word(name: "ensure", doc: "runs whatever happened before it, keeping the chain's outcome"),
        Word(name: "cookies", doc: "cookies off: the run's cookie store is not used"),
    ]

    private static let processes: Set<String> = ["sh", "exec"]
    private static let every: Set<String> = ["sh", "exec", "http", "file", "sleep", "log", "fail", "rethrow", "group"]

    /// Every attribute, in the order `fmt` writes a step's.
    package static let attributes: [Attribute] = [
        Attribute(name: "desc", takenBy: every, doc: "a one-line description (list, graph)"),
        Attribute(
            name: "on-demand", takenBy: every,
            doc: "runs only when named as a target (promise-run FILE LABEL) or needed by a lane that runs: clean, install, deploy"),
        Attribute(name: "timeout", takenBy: every, doc: "fails with kind timeout after the duration"),
        Attribute(name: "retry", takenBy: every, doc: "tries again: retry N [delay D | backoff D]"),
        Attribute(name: "needs", takenBy: every, doc: "in a parallel group: starts after these lanes succeeded"),
        Attribute(name: "allow-failure", takenBy: every, doc: "a failure is reported but the chain goes on"),
        Attribute(name: "cwd", takenBy: processes, doc: "the working folder"),
        Attribute(name: "env", takenBy: processes, doc: "an environment variable: env NAME = \"VALUE\" (in a block: for the steps after it)"),
        Attribute(name: "env-inputs", takenBy: processes, doc: "inherited variables the command reads, part of its fingerprint"),
        Attribute(name: "stdin", takenBy: processes, doc: "text fed to standard input"),
        Attribute(name: "detach", takenBy: processes, doc: "processes it starts may outlive it (a server), until the run ends"),
        Attribute(name: "executor", takenBy: processes.union(["group"]), doc: "where process steps run: local or slurm"),
        Attribute(name: "partition", takenBy: processes.union(["group"]), doc: "the Slurm partition"),
        Attribute(name: "cpus", takenBy: processes.union(["group"]), doc: "CPUs per step (and -j slots locally)"),
        Attribute(name: "memory", takenBy: processes.union(["group"]), doc: "memory per step on Slurm: \"4G\""),
        Attribute(name: "slurm-options", takenBy: processes.union(["group"]), doc: "more srun options, split as a shell would"),
        Attribute(name: "query", takenBy: ["http"], doc: "a query parameter: query NAME \"VALUE\""),
        Attribute(name: "header", takenBy: ["http"], doc: "a request header: header \"NAME\" \"VALUE\""),
        Attribute(name: "basic-auth", takenBy: ["http"], doc: "basic authentication: basic-auth \"USER\" \"PASSWORD\""),
        Attribute(name: "body", takenBy: ["http"], doc: "the request body: body \"TEXT\" or body file \"PATH\""),
        Attribute(name: "json", takenBy: ["http"], doc: "a JSON body, with Content-Type: application/json"),
        Attribute(name: "form", takenBy: ["http"], doc: "a form field (application/x-www-form-urlencoded)"),
        Attribute(name: "multipart", takenBy: ["http"], doc: "a multipart/form-data part: text or file"),
        Attribute(name: "redirects", takenBy: ["http"], doc: "follows at most N redirects (default 10)"),
        Attribute(name: "save", takenBy: ["http"], doc: "streams the body into a file"),
        Attribute(name: "insecure", takenBy: ["http"], doc: "does not verify the server's certificate"),
        Attribute(name: "cacert", takenBy: ["http"], doc: "trusts the authorities in this PEM file"),
        Attribute(name: "cert", takenBy: ["http"], doc: "the client certificate (PEM)"),
        Attribute(name: "key", takenBy: ["http"], doc: "the client certificate's key (PEM)"),
        Attribute(
            name: "connect-timeout", takenBy: ["http"], doc: "a connection not made within D fails the step with kind timeout: connect-timeout 2s"),
        Attribute(
            name: "resolve", takenBy: ["http"],
            doc: "connects to ADDRESS for HOST:PORT, with no lookup (curl's --resolve): resolve \"api.example.com:443:127.0.0.1\""),
        Attribute(name: "unix-socket", takenBy: ["http"], doc: "sends the request over a Unix domain socket: unix-socket \"/run/app.sock\""),
        Attribute(
            name: "http-version", takenBy: ["http"], doc: "the HTTP version asked for: http-version 1.1 or 2 (over http://: HTTP/2 without upgrade)"),
        Attribute(
            name: "expect", takenBy: processes.union(["http", "group"]),
            doc:
                "an expectation: exit, stdout, stderr, duration; status, body, header, json, xpath, sha256, md5, bytes, url, version, cookie, certificate; "
                + "in a group, a threshold: latency, failures, rate"),
        Attribute(
            name: "capture", takenBy: processes.union(["http"]),
            doc: "a value for later steps: capture NAME = json|xpath|header|cookie|url|certificate|stdout ... [| FILTER ...]"),
        Attribute(name: "sources", takenBy: processes, doc: "files whose contents decide whether the step is up to date"),
        Attribute(name: "generates", takenBy: processes, doc: "files the step makes; each must exist for it to be up to date"),
        Attribute(
            name: "depfile", takenBy: processes,
            doc: "a Makefile dependency file the command writes (gcc -MMD -MF): its prerequisites join the sources"),
    ]

    package static let fileOperations: [Word] = [
        Word(name: "write", doc: "writes text to a file (atomically)"),
        Word(name: "append", doc: "adds text to the end of a file"),
        Word(name: "read", doc: "reads a file into the step's content field"),
        Word(name: "copy", doc: "copies a file or a folder"),
        Word(name: "move", doc: "moves a file or a folder"),
        Word(name: "delete", doc: "deletes a file or a folder"),
        Word(name: "mkdir", doc: "makes a folder and its parents"),
        Word(name: "exists", doc: "fails unless the path exists"),
    ]

    package static let expectationSubjects: [Word] = [
        Word(name: "status", doc: "the HTTP status: expect status 200, 2xx, 200-299"),
        Word(name: "exit", doc: "the process's exit code"),
        Word(name: "stdout", doc: "the process's standard output"),
        Word(name: "stderr", doc: "the process's standard error"),
        Word(name: "body", doc: "the HTTP response body"),
        Word(name: "header", doc: "an HTTP response header"),
        Word(name: "json", doc: "a value in the JSON body at a path"),
        Word(name: "sha256", doc: "the body's SHA-256, lower-case hex: expect sha256 == \"9f86...\""),
        Word(name: "bytes", doc: "the body's size: expect bytes count == 1024"),
        Word(name: "md5", doc: "the body's MD5, lower-case hex: expect md5 == \"5d41...\""),
        Word(name: "duration", doc: "how long the step took: expect duration < 200ms (the response arrives, then the step fails)"),
        Word(name: "url", doc: "the final URL, after redirects: expect url == \"https://example.com/done\""),
        Word(name: "version", doc: "the response's HTTP version: expect version == \"2\" (\"1.1\" or \"2\")"),
        Word(name: "xpath", doc: "XPath 1.0 on an HTML or XML body: expect xpath \"string(//title)\" == \"Home\", expect xpath \"//li\" count == 3"),
        Word(
            name: "certificate",
            doc: "the server's TLS certificate: " + CertificateField.allCases.map(\.rawValue).joined(separator: ", ") + ": "
                + "expect certificate subject contains \"CN=api\", expect certificate expire-date > \"2030-01-01T00:00:00Z\""),
        Word(name: "cookie", doc: "a cookie the response set: expect cookie \"sid\" == \"abc\", expect cookie \"sid\" attribute \"Secure\" exists"),
    ]

    /// The tests of a text (a body, a stream, a header's value), after
    /// `expect body` and the like, each possibly after `not`.
    package static let textPredicates: [Word] = [
        Word(name: "contains", doc: "the text holds this: expect body contains \"ok\""),
        Word(name: "startsWith", doc: "the text begins with this: expect body startsWith \"{\""),
        Word(name: "endsWith", doc: "the text ends with this: expect header \"Location\" endsWith \"/done\""),
        Word(name: "matches", doc: "a regular expression finds a match: expect stdout matches '^v[0-9]+'"),
    ]

    /// Hurl's predicates on a JSON value: `expect json PATH [not] isUuid`.
    package static let valuePredicates: [Word] = ValuePredicate.allCases.map { predicate in
        let doc: String
        switch predicate {
        case .isUuid: doc = "a string holding a UUID: 8-4-4-4-12 hex digits"
        case .isIsoDate: doc = "a string holding an RFC 3339 date and time: 2026-01-31T12:00:00Z"
        case .isIpv4: doc = "a string holding an IPv4 address: 192.168.0.1"
        case .isIpv6: doc = "a string holding an IPv6 address: ::1"
        case .isNumber: doc = "a number"
        case .isString: doc = "a string"
        case .isBoolean: doc = "true or false"
        case .isList: doc = "an array (a list)"
        case .isObject: doc = "an object"
        case .isEmpty: doc = "an empty string, array or object"
        }
        return Word(name: predicate.rawValue, doc: doc)
    }

    /// The fields of the server's certificate, after `certificate` in an
    /// expectation or a capture.
    package static let certificateFields: [Word] = CertificateField.allCases.map { field in
        let doc: String
        switch field {
        case .subject: doc = "the certificate's subject, RFC 4514's order without spaces: expect certificate subject contains \"CN=api\""
        case .issuer: doc = "the certificate's issuer, written as subject is: expect certificate issuer == \"CN=Example CA,O=Example\""
        case .startDate:
            doc = "when the certificate became valid, RFC 3339 in UTC, compared as a time: expect certificate start-date <= \"2026-01-01\""
        case .expireDate:
            doc = "when the certificate expires, RFC 3339 in UTC, compared as a time: expect certificate expire-date > \"2030-01-01T00:00:00Z\""
        case .serialNumber:
            doc =
                "the certificate's serial number, lower-case hex (compared with case and colons ignored): expect certificate serial-number == \"1A:2B\""
        }
        return Word(name: field.rawValue, doc: doc)
    }

    /// What a group's thresholds bound: the words after
    /// `expect` in a group's block.
    package static let thresholdSubjects: [Word] = [
        Word(name: "latency", doc: "a latency statistic: expect latency [of LABEL] p99 < 250ms (min, mean, max, p0.1 to p99.99)"),
        Word(name: "failures", doc: "failed runs, a share or a count: expect failures [of LABEL] < 1%, expect failures <= 3"),
        Word(name: "rate", doc: "iterations (or runs) completed per second over the group: expect rate [of LABEL] >= 490/s"),
        Word(name: "lateness", doc: "how late iterations started on a rate's schedule: expect lateness p99 < 5ms"),
    ]

    /// The options after `parallel` (in a parallel group, or for a
    /// foreach's or a repeat's iterations), in the order `fmt` keeps.
    package static let parallelOptions: [Word] = [
        Word(name: "limit", doc: "at most N at once: limit N"),
        Word(name: "rate", doc: "starts on a fixed schedule, the k-th k/R after the group starts: rate 500/s (/s, /m, /h)"),
        Word(name: "ramp", doc: "after a rate, stages the rate moves through linearly: rate 0/s ramp 500/s in 30s, 0/s in 30s"),
        Word(name: "keep-going", doc: "every lane runs to its end; the group fails afterwards if one failed"),
    ]

    /// The attributes a step kind takes, in `fmt`'s order.
    package static func attributes(for kind: String) -> [String] {
        attributesByKind[kind] ?? []
    }

    /// `attributes(for:)` of every kind, worked out once (the parser asks
    /// for each step it reads).
    private static let attributesByKind: [String: [String]] = {
        var byKind: [String: [String]] = [:]
        for attribute in attributes {
            for kind in attribute.takenBy { byKind[kind, default: []].append(attribute.name) }
        }
        return byKind
    }()

    /// The fields `{{label.FIELD}}` may name for a step kind (besides its
    /// captures); none for groups and steps without values.
    package static func fields(of kind: String, fileOperation: String? = nil) -> [Word] {
        switch kind {
        case "sh", "exec": return processFields
        case "http": return httpFields
        case "file":
            return fileOperation == "read"
                ? [Word(name: "content", doc: "the file's text"), Word(name: "path", doc: "the file's path")]
                : [Word(name: "path", doc: "the file's path")]
        default: return []
        }
    }

    /// `{{label.duration}}`: every step that runs has it.
    private static let durationField = Word(name: "duration", doc: "how long it took, in seconds")

    private static let processFields: [Word] = [
        Word(name: "stdout", doc: "the standard output (its last 1 MiB)"),
        Word(name: "stderr", doc: "the standard error (its last 1 MiB)"),
        Word(name: "exit", doc: "the exit code"),
        durationField,
    ]

    private static let httpFields: [Word] = [
        Word(name: "status", doc: "the response status"),
        Word(name: "body", doc: "the response body as text"),
        Word(name: "header", doc: "a response header: header.NAME (any case)"),
        Word(name: "json", doc: "a value of the JSON body: json.PATH (json.items[0].id)"),
        durationField,
        Word(name: "url", doc: "the final URL, after redirects"),
        Word(name: "redirects", doc: "how many redirects were followed"),
        Word(name: "version", doc: "the HTTP version of the response"),
        Word(name: "cookie", doc: "a cookie in the run's store: cookie.NAME"),
        Word(name: "timing", doc: "when a phase ended, in seconds: timing.dns, connect, tls, firstByte, total"),
    ]

    /// The filters of `{{ value | FILTER }}`, of `capture NAME = ... |
    /// FILTER` and of `expect SUBJECT | FILTER ...`.
    package static let filters: [Word] = Filter.allCases.map { filter in
        let doc: String
        switch filter {
        case .trim: doc = "removes leading and trailing white space"
        case .shell: doc = "quotes the value for a POSIX shell"
        case .json: doc = "a JSON string literal of the value"
        case .url: doc = "percent-encodes the value for a URL"
        case .base: doc = "a path's last name: src/a.c gives a.c"
        case .stem: doc = "a path's last name without its extension: src/a.c gives a"
        case .ext: doc = "a path's extension, with its dot: src/a.c gives .c"
        case .dir: doc = "a path's folder: src/a.c gives src (none: .)"
        case .count: doc = "how many items a list has (members, for an object): json \"$.items[*]\" | count"
        case .first: doc = "a list's first item"
        case .last: doc = "a list's last item"
        case .nth: doc = "nth N: a list's item N, counting from 0 (-1: the last)"
        case .split: doc = "split \"SEP\": the text cut at each separator, a list"
        case .replace: doc = "replace \"A\" \"B\": every A in the text replaced by B"
        case .lower: doc = "the text in lower case"
        case .upper: doc = "the text in upper case"
        case .toInt: doc = "a number from a text holding an integer (a decimal: its whole part)"
        case .toFloat: doc = "a number from a text holding one: \"2.50\" gives 2.5"
        case .base64Encode: doc = "the text's UTF-8 in base64"
        case .base64Decode: doc = "the text base64 holds (standard or URL-safe alphabet, padding optional)"
        case .urlEncode: doc = "percent-encodes all but A-Z a-z 0-9 - . _ ~"
        case .urlDecode: doc = "decodes %XX escapes"
        case .sha256: doc = "the text's SHA-256, lower-case hex"
        case .jsonpath: doc = "jsonpath \"PATH\": the value at a JSON path of a text holding JSON: {{r.body | jsonpath \"$.id\"}}"
        }
        return Word(name: filter.rawValue, doc: doc)
    }

    /// `{{newUuid}}`, `{{newDate}}`: values a template makes.
    package static let templateFunctions: [Word] = TemplateFunction.allCases.map { function in
        switch function {
        case .newUuid: return Word(name: function.rawValue, doc: "a random UUID (version 4), fresh at each use: {{newUuid}}")
        case .newDate: return Word(name: function.rawValue, doc: "the time now, RFC 3339 in UTC: {{newDate}} gives 2026-01-31T12:00:00.123456Z")
        }
    }

    /// The expectation subjects a step kind takes (`expect` in its block).
    package static func expectationSubjects(for kind: String) -> [Word] {
        let names: Set<String> =
            processes.contains(kind)
            ? ["exit", "stdout", "stderr", "duration"]
            : kind == "http"
                ? ["status", "body", "header", "json", "sha256", "md5", "bytes", "duration", "url", "version", "cookie", "xpath", "certificate"] : []
        return expectationSubjects.filter { names.contains($0.name) }
    }

    /// Where `capture NAME =` reads from, and which steps have it.
    package static let captureSources: [Attribute] = [
        Attribute(name: "json", takenBy: ["http"], doc: "a value of the JSON body: capture id = json \".id\""),
        Attribute(name: "header", takenBy: ["http"], doc: "a response header: capture token = header \"X-Token\""),
        Attribute(name: "cookie", takenBy: ["http"], doc: "a cookie the response set: capture sid = cookie \"sid\""),
        Attribute(name: "url", takenBy: ["http"], doc: "the final URL, after redirects"),
        Attribute(name: "xpath", takenBy: ["http"], doc: "XPath 1.0 on an HTML or XML body: capture title = xpath \"string(//title)\""),
        Attribute(name: "certificate", takenBy: ["http"], doc: "a field of the server's TLS certificate: capture until = certificate expire-date"),
        Attribute(name: "body", takenBy: ["http"], doc: "the body, through a pattern: capture v = body matches 'v([0-9]+)'"),
        Attribute(name: "stdout", takenBy: processes, doc: "the standard output, through a pattern: capture v = stdout matches 'v([0-9]+)'"),
        Attribute(name: "stderr", takenBy: processes, doc: "the standard error, through a pattern"),
    ]

    /// The kinds of failure a `catch` can name.
    package static let catchKinds: [Word] = FailureKind.allCases.map { kind in
        let doc: String
        switch kind {
        case .exit: doc = "a process exited with a code that was not expected"
        case .signal: doc = "a process was killed by a signal"
        case .spawn: doc = "a process could not start"
        case .timeout: doc = "a timeout expired"
        case .http: doc = "an HTTP status that was not expected"
        case .network: doc = "a connection failed (DNS, refused, TLS, reset)"
        case .expect: doc = "an expectation failed"
        case .file: doc = "a file operation failed"
        case .fail: doc = "a fail step"
        case .reference: doc = "a template named a value that is not there"
        }
        return Word(name: kind.rawValue, doc: doc)
    }

    /// The options after `retry N`.
    package static let retryOptions: [Word] = [
        Word(name: "delay", doc: "waits D between attempts: retry 3 delay 2s"),
        Word(name: "backoff", doc: "waits D, 2D, 4D, ... between attempts: retry 3 backoff 1s"),
    ]

    /// What `foreach NAME in` takes besides a list `[...]` and a variable.
    package static let listFunctions: [Word] = [
        Word(name: "range", doc: "the numbers from A to B: range(1, 10)"),
        Word(name: "lines", doc: "the lines of a text: lines(\"{{build.stdout}}\")"),
        Word(name: "split", doc: "a text cut at a separator: split(\"a,b\", \",\")"),
        Word(name: "glob", doc: "the files a pattern matches: glob(\"src/*.c\")"),
    ]

    /// Every word that can start a statement.
    package static var statementWords: [String] {
        (stepKinds + groupKinds + declarations).map(\.name)
    }

    /// The doc of any word of the language (hover), if it is one.
    package static func doc(of name: String) -> String? {
        (stepKinds + groupKinds + declarations + fileOperations + expectationSubjects + textPredicates + valuePredicates + certificateFields
            + templateFunctions)
            .first { $0.name == name }?.doc
            ?? attributes.first { $0.name == name }?.doc
    }
}
