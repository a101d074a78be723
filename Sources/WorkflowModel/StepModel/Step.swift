import PromiseEngine

// What each step does (spec §5), as data generic over its text: `Step` as
// written (`Template`s), `ResolvedStep` as a step runner gets it (`String`s,
// every template evaluated). Expectations and captures are data here; the
// step implementations evaluate them.

extension StepModel {
    /// What a step does (spec §5).
    package enum Step: Sendable, Hashable {
        /// `sh STRING`: `/bin/sh -c` with the command.
        case shell(command: Text, process: ProcessOptions)
        /// `exec STRING...`: a program and its arguments, no shell.
        case exec(arguments: [Text], process: ProcessOptions)
        indirect case http(HTTPRequest)
        case file(FileOperation)
        case sleep(Duration)
        case log(Text)
        case fail(Text)
        /// Inside a catch: fails with the caught error.
        case rethrow

        /// The keyword of the step: `sh`, `exec`, `http`, `file`, ...
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
    package struct ProcessOptions: Sendable, Hashable {
        /// Text fed to standard input; none means standard input is empty.
        package var stdin: Text?
        package var expectations: [StepExpectation]
        package var captures: [Capture]
        /// `detach`: the processes the step starts may outlive it (a server
        /// for later steps); they are ended, without a warning, when the run
        /// ends.
        package var detach: Bool
        /// `sources "GLOB"...`: the files whose names and contents, with the
        /// command, decide whether the step is up to date (spec §13).
        package var sources: [Text] = []
        /// `generates "GLOB"...`: each must match a file for the step to be
        /// up to date.
        package var generates: [Text] = []
        /// `env-inputs NAME...`: inherited variables the command reads by
        /// itself; their values join the fingerprint (spec §13).
        package var environmentInputs: [String] = []

        package init(stdin: Text? = nil, expectations: [StepExpectation] = [], captures: [Capture] = [],
                    detach: Bool = false, sources: [Text] = [], generates: [Text] = [], environmentInputs: [String] = []) {
            self.sources = sources
            self.generates = generates
            self.environmentInputs = environmentInputs
            self.stdin = stdin
            self.expectations = expectations
            self.captures = captures
            self.detach = detach
        }
    }

    /// `http METHOD URL { ... }`.
    package struct HTTPRequest: Sendable, Hashable {
        package var method: HTTPMethod
        package var url: Text
        /// Request headers, in order; a name may repeat.
        package var headers: [Named]
        package var body: HTTPBody
        /// Follow at most this many redirects; nil means the default (10).
        package var redirects: Int?
        /// Stream the body into this file.
        package var save: Text?
        package var expectations: [StepExpectation]
        package var captures: [Capture]
        /// Certificate checks and a client certificate (`insecure`, `cacert`,
        /// `cert`, `key`).
        package var tls: HTTPTLSOptions
        /// Whether the run's cookie store is used (`cookies off` in a block
        /// turns it off for the steps below).
        package var cookies: Bool
        /// `query NAME STRING`, in order: appended to the URL's query string,
        /// name and value percent-encoded.
        package var query: [Named]
        /// `basic-auth USER PASSWORD`: sent as `Authorization: Basic ...`.
        package var basicAuth: BasicAuth?

        package init(method: HTTPMethod, url: Text, headers: [Named] = [], body: HTTPBody = .none,
                    redirects: Int? = nil, save: Text? = nil, expectations: [StepExpectation] = [], captures: [Capture] = [],
                    tls: HTTPTLSOptions = HTTPTLSOptions(), cookies: Bool = true, query: [Named] = [],
                    basicAuth: BasicAuth? = nil) {
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

    /// An http step's TLS attributes (spec §11).
    package struct HTTPTLSOptions: Sendable, Hashable {
        /// `insecure`: do not verify the server's certificate.
        package var insecure: Bool
        /// `cacert PATH`: trust the authorities in this PEM file.
        package var caCertificate: Text?
        /// `cert PATH`: a client certificate (PEM).
        package var certificate: Text?
        /// `key PATH`: the client certificate's key (PEM).
        package var key: Text?

        package init(insecure: Bool = false, caCertificate: Text? = nil, certificate: Text? = nil, key: Text? = nil) {
            self.insecure = insecure
            self.caCertificate = caCertificate
            self.certificate = certificate
            self.key = key
        }

        /// Whether no TLS attribute was written.
        package var isEmpty: Bool { !insecure && caCertificate == nil && certificate == nil && key == nil }
    }

    /// `basic-auth USER PASSWORD`.
    package struct BasicAuth: Sendable, Hashable {
        /// The user name.
        package var user: Text
        /// The password (mark it `secret` to keep it out of output).
        package var password: Text

        /// `basic-auth USER PASSWORD`.
        package init(user: Text, password: Text) {
            self.user = user
            self.password = password
        }
    }

    /// A name and a value: a request header, a query parameter or a form
    /// field. As written, both may interpolate.
    package struct Named: Sendable, Hashable {
        /// The name.
        package var name: Text
        /// The value.
        package var value: Text

        /// A name and a value.
        package init(name: Text, value: Text) {
            self.name = name
            self.value = value
        }
    }

    /// One part of a `multipart/form-data` body.
    package struct MultipartPart: Sendable, Hashable {
        /// What the part holds.
        package enum Content: Sendable, Hashable {
            /// `multipart NAME STRING`
            case text(Text)
            /// `multipart NAME file PATH [type STRING]`: the file's bytes, its
            /// name as the part's filename, the type (else guessed from the
            /// extension).
            case file(path: Text, type: Text?)
        }

        /// The form field's name.
        package var name: Text
        /// Its text, or a file.
        package var content: Content

        /// One part.
        package init(name: Text, content: Content) {
            self.name = name
            self.content = content
        }
    }

    /// The body of a request.
    package enum HTTPBody: Sendable, Hashable {
        case none
        /// `body STRING`
        case text(Text)
        /// `body file PATH`
        case file(Text)
        /// `json STRING`: sent with `Content-Type: application/json`.
        case json(Text)
        /// `form NAME STRING`, repeated: url-encoded.
        case form([Named])
        /// `multipart NAME STRING` / `multipart NAME file PATH [type STRING]`,
        /// repeated: `multipart/form-data`.
        case multipart([MultipartPart])
    }

    /// A `file` step.
    package enum FileOperation: Sendable, Hashable {
        case write(path: Text, content: Text)
        case append(path: Text, content: Text)
        case read(path: Text)
        case copy(from: Text, to: Text)
        case move(from: Text, to: Text)
        case delete(path: Text)
        case mkdir(path: Text)
        case exists(path: Text)

        /// The operation's keyword: `write`, `append`, ...
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
package struct HTTPMethod: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The method as sent: `GET`, `PURGE`.
    package let rawValue: String

    /// Any token of capital letters.
    package init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// `GET`.
    package static let GET = HTTPMethod(rawValue: "GET")
    /// `POST`.
    package static let POST = HTTPMethod(rawValue: "POST")
    /// `PUT`.
    package static let PUT = HTTPMethod(rawValue: "PUT")
    /// `PATCH`.
    package static let PATCH = HTTPMethod(rawValue: "PATCH")
    /// `DELETE`.
    package static let DELETE = HTTPMethod(rawValue: "DELETE")
    /// `HEAD`.
    package static let HEAD = HTTPMethod(rawValue: "HEAD")
    /// `OPTIONS`.
    package static let OPTIONS = HTTPMethod(rawValue: "OPTIONS")

    /// GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS: a method one letter
    /// away from one of these gets a "did you mean" warning.
    package static let standard: [HTTPMethod] = [.GET, .POST, .PUT, .PATCH, .DELETE, .HEAD, .OPTIONS]

    /// The method as sent.
    package var description: String { rawValue }
}
