/// What a step does (spec §5). Expectations and captures are data here; the
/// step implementations evaluate them.
public enum Step: Sendable, Hashable {
    /// `sh STRING`: `/bin/sh -c` with the command.
    case shell(command: Template, process: ProcessOptions)
    /// `exec STRING...`: a program and its arguments, no shell.
    case exec(arguments: [Template], process: ProcessOptions)
    indirect case http(HTTPRequest)
    case file(FileOperation)
    case sleep(Duration)
    case log(Template)
    case fail(Template)
    /// Inside a catch: fails with the caught error.
    case rethrow

    /// The keyword of the step: `sh`, `exec`, `http`, `file`, ...
    public var kindName: String {
        switch self {
        case .shell: return "sh"
        case .exec: return "exec"
        case .http: return "http"
        case .file: return "file"
        case .sleep: return "sleep"
        case .log: return "log"
        case .fail: return "fail"
        case .rethrow: return "rethrow"
        }
    }
}

/// What `sh` and `exec` steps share besides `cwd` and `env` (which are in
/// `Attributes`).
public struct ProcessOptions: Sendable, Hashable {
    /// Text fed to standard input; none means standard input is empty.
    public var stdin: Template?
    public var expectations: [StepExpectation]
    public var captures: [Capture]
    /// `detach`: the processes the step starts may outlive it (a server
    /// for later steps); they are ended, without a warning, when the run
    /// ends.
    public var detach: Bool

    public init(stdin: Template? = nil, expectations: [StepExpectation] = [], captures: [Capture] = [],
                detach: Bool = false) {
        self.stdin = stdin
        self.expectations = expectations
        self.captures = captures
        self.detach = detach
    }
}

/// `http METHOD URL { ... }`.
public struct HTTPRequest: Sendable, Hashable {
    public var method: HTTPMethod
    public var url: Template
    /// Request headers, in order; a name may repeat.
    public var headers: [NamedTemplate]
    public var body: HTTPBody
    /// Follow at most this many redirects; nil means the default (10).
    public var redirects: Int?
    /// Stream the body into this file.
    public var save: Template?
    public var expectations: [StepExpectation]
    public var captures: [Capture]
    /// Certificate checks and a client certificate (`insecure`, `cacert`,
    /// `cert`, `key`).
    public var tls: HTTPTLSOptions
    /// Whether the run's cookie store is used (`cookies off` in a block
    /// turns it off for the steps below).
    public var cookies: Bool

    public init(method: HTTPMethod, url: Template, headers: [NamedTemplate] = [], body: HTTPBody = .none,
                redirects: Int? = nil, save: Template? = nil, expectations: [StepExpectation] = [], captures: [Capture] = [],
                tls: HTTPTLSOptions = HTTPTLSOptions(), cookies: Bool = true) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.redirects = redirects
        self.save = save
        self.expectations = expectations
        self.captures = captures
        self.tls = tls
        self.cookies = cookies
    }
}

/// An http step's TLS attributes (spec §11).
public struct HTTPTLSOptions: Sendable, Hashable {
    /// `insecure`: do not verify the server's certificate.
    public var insecure: Bool
    /// `cacert PATH`: trust the authorities in this PEM file.
    public var caCertificate: Template?
    /// `cert PATH`: a client certificate (PEM).
    public var certificate: Template?
    /// `key PATH`: the client certificate's key (PEM).
    public var key: Template?

    public init(insecure: Bool = false, caCertificate: Template? = nil, certificate: Template? = nil, key: Template? = nil) {
        self.insecure = insecure
        self.caCertificate = caCertificate
        self.certificate = certificate
        self.key = key
    }

    /// Whether no TLS attribute was written.
    public var isEmpty: Bool { !insecure && caCertificate == nil && certificate == nil && key == nil }
}

/// The HTTP methods the `http` step takes.
public enum HTTPMethod: String, Sendable, Hashable, CaseIterable {
    case GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS
}

/// A name and a value: a request header or a form field.
public struct NamedTemplate: Sendable, Hashable {
    public var name: String
    public var value: Template

    public init(name: String, value: Template) {
        self.name = name
        self.value = value
    }
}

/// The body of a request.
public enum HTTPBody: Sendable, Hashable {
    case none
    /// `body STRING`
    case text(Template)
    /// `body file PATH`
    case file(Template)
    /// `json STRING`: sent with `Content-Type: application/json`.
    case json(Template)
    /// `form NAME STRING`, repeated: url-encoded.
    case form([NamedTemplate])
}

/// A `file` step.
public enum FileOperation: Sendable, Hashable {
    case write(path: Template, content: Template)
    case append(path: Template, content: Template)
    case read(path: Template)
    case copy(from: Template, to: Template)
    case move(from: Template, to: Template)
    case delete(path: Template)
    case mkdir(path: Template)
    case exists(path: Template)

    /// The operation's keyword: `write`, `append`, ...
    public var name: String {
        switch self {
        case .write: return "write"
        case .append: return "append"
        case .read: return "read"
        case .copy: return "copy"
        case .move: return "move"
        case .delete: return "delete"
        case .mkdir: return "mkdir"
        case .exists: return "exists"
        }
    }

    /// The paths and contents, in the order written.
    public var operands: [Template] {
        switch self {
        case .write(let path, let content), .append(let path, let content): return [path, content]
        case .copy(let from, let to), .move(let from, let to): return [from, to]
        case .read(let path), .delete(let path), .mkdir(let path), .exists(let path): return [path]
        }
    }
}
