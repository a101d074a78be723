import PromiseEngine

// What each step does, as data generic over its text: `Step` as
// written (`Template`s), `ResolvedStep` as a step runner gets it (`String`s,
// every template evaluated). Expectations and captures are data here; the
// step implementations evaluate them.
//
// `Step` is `indirect`, and so is each other case whose payload holds the
// text itself: a generic enum with such a payload has its layout worked out
// at run time, even for `StepModel<Template>`, so every copy of a step, a
// node or a request went through value witnesses (4% of a run of 10,000
// `log` steps). Boxed, a payload is one reference and the enum's layout is
// fixed; a copy is a retain. Members used across modules are `@inlinable` for the same reason:
// a generic function called from another module runs unspecialized.
// See docs/language.md, 'Steps'.

extension StepModel {
    /// What a step does.
    @usableFromInline
    package indirect enum Step: Sendable, Hashable {
        /// `sh STRING`: `/bin/sh -c` with the command.
        case shell(command: Text, process: ProcessOptions)
        /// `exec STRING...`: a program and its arguments, no shell.
        case exec(arguments: [Text], process: ProcessOptions)
        case http(HTTPRequest)
        case file(FileOperation)
        case sleep(Duration)
        case log(Text)
        case fail(Text)
        /// Inside a catch: fails with the caught error.
        case rethrow

        /// A process step's options (`sh`, `exec`); nil for other kinds.
        @inlinable
        package var processOptions: ProcessOptions? {
            switch self {
            case .shell(_, let options), .exec(_, let options): return options
            default: return nil
            }
        }

        /// The keyword of the step: `sh`, `exec`, `http`, `file`, ...
        @inlinable
        package var kindName: String {
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
    @usableFromInline
    package struct ProcessOptions: Sendable, Hashable {
        /// Text fed to standard input; none means standard input is empty.
        @usableFromInline
        package var stdin: Text?
        @usableFromInline
        package var expectations: [StepExpectation]
        @usableFromInline
        package var captures: [Capture]
        /// `detach`: the processes the step starts may outlive it (a server
        /// for later steps); they are ended, without a warning, when the run
        /// ends.
        @usableFromInline
        package var detach: Bool
        /// `sources "GLOB"...`: the files whose names and contents, with the
        /// command, decide whether the step is up to date.
        @usableFromInline
        package var sources: [Text] = []
        /// `generates "GLOB"...`: each must match a file for the step to be
        /// up to date.
        @usableFromInline
        package var generates: [Text] = []
        /// `env-inputs NAME...`: inherited variables the command reads by
        /// itself; their values join the fingerprint.
        @usableFromInline
        package var environmentInputs: [String] = []
        /// `depfile "PATH"`: a file in Makefile dependency form the command
        /// writes (`gcc -MMD -MF`); after a success, its prerequisites join
        /// the step's sources for the following runs.
        @usableFromInline
        package var depfile: Text?

        @inlinable
        package init(
            stdin: Text? = nil, expectations: [StepExpectation] = [], captures: [Capture] = [],
            detach: Bool = false, sources: [Text] = [], generates: [Text] = [], environmentInputs: [String] = [],
            depfile: Text? = nil
        ) {
            self.sources = sources
            self.generates = generates
            self.depfile = depfile
            self.environmentInputs = environmentInputs
            self.stdin = stdin
            self.expectations = expectations
            self.captures = captures
            self.detach = detach
        }
    }

    /// `http METHOD URL { ... }`.
    @usableFromInline
    package struct HTTPRequest: Sendable, Hashable {
        @usableFromInline
        package var method: HTTPMethod
        @usableFromInline
        package var url: Text
        /// Request headers, in order; a name may repeat.
        @usableFromInline
        package var headers: [Named]
        @usableFromInline
        package var body: HTTPBody
        /// Follow at most this many redirects; nil means the default (10).
        @usableFromInline
        package var redirects: Int?
        /// Stream the body into this file.
        @usableFromInline
        package var save: Text?
        @usableFromInline
        package var expectations: [StepExpectation]
        @usableFromInline
        package var captures: [Capture]
        /// Certificate checks and a client certificate (`insecure`, `cacert`,
        /// `cert`, `key`).
        @usableFromInline
        package var tls: HTTPTLSOptions
        /// Whether the run's cookie store is used (`cookies off` in a block
        /// turns it off for the steps below).
        @usableFromInline
        package var cookies: Bool
        /// `query NAME STRING`, in order: appended to the URL's query string,
        /// name and value percent-encoded.
        @usableFromInline
        package var query: [Named]
        /// `basic-auth USER PASSWORD`: sent as `Authorization: Basic ...`.
        @usableFromInline
        package var basicAuth: BasicAuth?
        /// How the request travels: `connect-timeout`, `resolve`,
        /// `unix-socket`, `http-version`.
        @usableFromInline
        package var transport: HTTPTransportOptions

        @inlinable
        package init(
            method: HTTPMethod, url: Text, headers: [Named] = [], body: HTTPBody = .none,
            redirects: Int? = nil, save: Text? = nil, expectations: [StepExpectation] = [], captures: [Capture] = [],
            tls: HTTPTLSOptions = HTTPTLSOptions(), cookies: Bool = true, query: [Named] = [],
            basicAuth: BasicAuth? = nil, transport: HTTPTransportOptions = HTTPTransportOptions()
        ) {
            self.transport = transport
            self.method = method
            self.url = url
            self.query = query
            self.basicAuth = basicAuth
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

    /// An http step's TLS attributes.
    @usableFromInline
    package struct HTTPTLSOptions: Sendable, Hashable {
        /// `insecure`: do not verify the server's certificate.
        @usableFromInline
        package var insecure: Bool
        /// `cacert PATH`: trust the authorities in this PEM file.
        @usableFromInline
        package var caCertificate: Text?
        /// `cert PATH`: a client certificate (PEM).
        @usableFromInline
        package var certificate: Text?
        /// `key PATH`: the client certificate's key (PEM).
        @usableFromInline
        package var key: Text?

        @inlinable
        package init(insecure: Bool = false, caCertificate: Text? = nil, certificate: Text? = nil, key: Text? = nil) {
            self.insecure = insecure
            self.caCertificate = caCertificate
            self.certificate = certificate
            self.key = key
        }

        /// Whether no TLS attribute was written.
        @inlinable
        package var isEmpty: Bool { !insecure && caCertificate == nil && certificate == nil && key == nil }
    }

    /// An http step's transport attributes.
    @usableFromInline
    package struct HTTPTransportOptions: Sendable, Hashable {
        /// `connect-timeout D`: a connection not made by then fails the
        /// step with kind `timeout`.
        @usableFromInline
        package var connectTimeout: Duration?
        /// `resolve "HOST:PORT:ADDRESS"` (curl's `--resolve`), in order:
        /// requests to HOST:PORT connect to ADDRESS, with no lookup.
        @usableFromInline
        package var resolve: [Text]
        /// `unix-socket "PATH"`: the request goes over this Unix domain
        /// socket instead of TCP.
        @usableFromInline
        package var unixSocket: Text?
        /// `http-version 1.1|2`: the HTTP version asked for (the step's
        /// wins over `--http-version`).
        @usableFromInline
        package var httpVersion: HTTPVersion?

        @inlinable
        package init(connectTimeout: Duration? = nil, resolve: [Text] = [], unixSocket: Text? = nil, httpVersion: HTTPVersion? = nil) {
            self.connectTimeout = connectTimeout
            self.resolve = resolve
            self.unixSocket = unixSocket
            self.httpVersion = httpVersion
        }

        /// Whether no transport attribute was written.
        @inlinable
        package var isEmpty: Bool { connectTimeout == nil && resolve.isEmpty && unixSocket == nil && httpVersion == nil }
    }

    /// `basic-auth USER PASSWORD`.
    @usableFromInline
    package struct BasicAuth: Sendable, Hashable {
        /// The user name.
        @usableFromInline
        package var user: Text
        /// The password (mark it `secret` to keep it out of output).
        @usableFromInline
        package var password: Text

        /// `basic-auth USER PASSWORD`.
        @inlinable
        package init(user: Text, password: Text) {
            self.user = user
            self.password = password
        }
    }

    /// A name and a value: a request header, a query parameter or a form
    /// field. As written, both may interpolate.
    @usableFromInline
    package struct Named: Sendable, Hashable {
        /// The name.
        @usableFromInline
        package var name: Text
        /// The value.
        @usableFromInline
        package var value: Text

        /// A name and a value.
        @inlinable
        package init(name: Text, value: Text) {
            self.name = name
            self.value = value
        }
    }

    /// One part of a `multipart/form-data` body.
    @usableFromInline
    package struct MultipartPart: Sendable, Hashable {
        /// What the part holds.
        @usableFromInline
        package indirect enum Content: Sendable, Hashable {
            /// `multipart NAME STRING`
            case text(Text)
            /// `multipart NAME file PATH [type STRING]`: the file's bytes, its
            /// name as the part's filename, the type (else guessed from the
            /// extension).
            case file(path: Text, type: Text?)
        }

        /// The form field's name.
        @usableFromInline
        package var name: Text
        /// Its text, or a file.
        @usableFromInline
        package var content: Content

        /// One part.
        @inlinable
        package init(name: Text, content: Content) {
            self.name = name
            self.content = content
        }
    }

    /// The body of a request.
    @usableFromInline
    package enum HTTPBody: Sendable, Hashable {
        case none
        /// `body STRING`
        indirect case text(Text)
        /// `body file PATH`
        indirect case file(Text)
        /// `json STRING`: sent with `Content-Type: application/json`.
        indirect case json(Text)
        /// `form NAME STRING`, repeated: url-encoded.
        case form([Named])
        /// `multipart NAME STRING` / `multipart NAME file PATH [type STRING]`,
        /// repeated: `multipart/form-data`.
        case multipart([MultipartPart])
    }

    /// A `file` step.
    @usableFromInline
    package indirect enum FileOperation: Sendable, Hashable {
        case write(path: Text, content: Text)
        case append(path: Text, content: Text)
        case read(path: Text)
        case copy(from: Text, to: Text)
        case move(from: Text, to: Text)
        case delete(path: Text)
        case mkdir(path: Text)
        case exists(path: Text)

        /// The operation's keyword: `write`, `append`, ...
        @inlinable
        package var name: String {
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
        @inlinable
        package var operands: [Text] {
            switch self {
            case .write(let path, let content), .append(let path, let content): return [path, content]
            case .copy(let from, let to), .move(let from, let to): return [from, to]
            case .read(let path), .delete(let path), .mkdir(let path), .exists(let path): return [path]
            }
        }
    }
}

/// An HTTP method: any token of upper-case letters (`PURGE`, `PROPFIND`);
/// the standard ones have names here.
@usableFromInline
package struct HTTPMethod: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The method as sent: `GET`, `PURGE`.
    @usableFromInline
    package let rawValue: String

    /// Any token of capital letters.
    @inlinable
    package init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// `GET`.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    package static let GET = HTTPMethod(rawValue: "GET")
    /// `POST`.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    package static let POST = HTTPMethod(rawValue: "POST")
    /// `PUT`.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    package static let PUT = HTTPMethod(rawValue: "PUT")
    /// `PATCH`.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    package static let PATCH = HTTPMethod(rawValue: "PATCH")
    /// `DELETE`.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    package static let DELETE = HTTPMethod(rawValue: "DELETE")
    /// `HEAD`.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    package static let HEAD = HTTPMethod(rawValue: "HEAD")
    /// `OPTIONS`.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    package static let OPTIONS = HTTPMethod(rawValue: "OPTIONS")

    /// GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS: a method one letter
    /// away from one of these gets a "did you mean" warning.
    package static let standard: [HTTPMethod] = [.GET, .POST, .PUT, .PATCH, .DELETE, .HEAD, .OPTIONS]

    /// The method as sent.
    @inlinable
    package var description: String { rawValue }
}
