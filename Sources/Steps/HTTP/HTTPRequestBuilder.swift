import Glibc
import PromiseEngine
import RunnerSystem
import WorkflowModel

/// What an `http` step sends, before any redirect. An object, made once
/// and never changed: what carries it (the client's start, the order, the
/// exchange) holds one reference, not a copy of its dozen.
final class PreparedRequest: Sendable {
    let method: String
    let url: RequestURL
    /// The step's headers in order, with a default `Content-Type` for
    /// `json` and `form` bodies.
    let headers: [(name: String, value: String)]
    let body: RequestBody
    let tls: TLSSettings
    let transport: TransportSettings

    init(
        method: String, url: RequestURL, headers: [(name: String, value: String)], body: RequestBody, tls: TLSSettings,
        transport: TransportSettings
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.tls = tls
        self.transport = transport
    }
}

/// Turns an `http` step (its templates resolved) into a `PreparedRequest`.
enum HTTPRequestBuilder {
    /// Thrown for what cannot be sent: a bad URL or header (kind
    /// `network`), a missing body file (kind `file`).
    static func prepare(
        _ step: ResolvedHTTPRequest, workingDirectory: String,
        configuration: StepsConfiguration
    ) throws(StepFailure) -> PreparedRequest {
        var text = step.url
        var label: String { step.label }
        if !step.query.isEmpty { text = withQuery(text, step.query) }
        guard let url = RequestURL.parse(text) else {
            throw StepFailure(.network, "\(label): " + (HTTPURLShape.problem(text) ?? "not an http:// or https:// URL"))
        }
        var headers: [(name: String, value: String)] = []
        for header in step.headers {
            let name = header.name
            let value = header.value
            guard isToken(name) else {
                throw StepFailure(.network, "\(label): '\(name)' cannot be a header name (letters, digits and !#$%&'*+-.^_`|~ only)")
            }
            guard !value.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D || $0 == 0 }) else {
                throw StepFailure(.network, "\(label): the value of header '\(name)' has a line break; it cannot be sent")
            }
            headers.append((name, value))
        }
        if let auth = step.basicAuth {
            addIfMissing(&headers, "Authorization", "Basic " + BasicAuthToken.of(user: auth.user, password: auth.password))
        }
        var body = RequestBody.none
        switch step.body {
        case .none:
            break
        case .text(let text):
            body = .bytes(Array(text.utf8))
        case .json(let text):
            body = .bytes(Array(text.utf8))
            addIfMissing(&headers, "Content-Type", "application/json")
        case .form(let fields):
            let encoded = fields.map { formEncoded($0.name) + "=" + formEncoded($0.value) }
            body = .bytes(Array(encoded.joined(separator: "&").utf8))
            addIfMissing(&headers, "Content-Type", "application/x-www-form-urlencoded")
        case .multipart(let parts):
            let form = try MultipartBody.make(parts, workingDirectory: workingDirectory, label: label)
            body = .bytes(form.bytes)
            addIfMissing(&headers, "Content-Type", "multipart/form-data; boundary=" + form.boundary)
        case .file(let path):
            let file = Paths.resolve(path, against: workingDirectory)
            var info = stat()
            guard stat(file, &info) == 0 else {
                throw StepFailure(.file, "\(label): body file \(file): \(systemReason(errno))")
            }
            guard (info.st_mode & S_IFMT) == S_IFREG else {
                throw StepFailure(.file, "\(label): body file \(file) is not a regular file")
            }
            body = .file(path: file, size: Int64(info.st_size))
        }
        func path(_ text: String?) -> String? {
            text.map { Paths.resolve($0, against: workingDirectory) }
        }
        let tls = TLSSettings(
            insecure: step.tls.insecure || configuration.insecure,
            caFile: path(step.tls.caCertificate) ?? configuration.caCertificate,
            certificateFile: path(step.tls.certificate), keyFile: path(step.tls.key))
        var resolve: [ResolveMapping] = []
        for text in step.transport.resolve {
            guard let mapping = ResolveMapping(text) else {
                throw StepFailure(.network, "\(label): invalid resolve '\(text)': \(ResolveMapping.problem(in: text) ?? "not HOST:PORT:ADDRESS")")
            }
            resolve.append(mapping)
        }
        let transport = TransportSettings(
            connectTimeout: step.transport.connectTimeout, resolve: resolve,
            unixSocket: path(step.transport.unixSocket),
            httpVersion: step.transport.httpVersion ?? configuration.httpVersion)
        return PreparedRequest(method: step.method.rawValue, url: url, headers: headers, body: body, tls: tls, transport: transport)
    }

    /// `url` with `parameters` appended to its query (before any
    /// `#fragment`), names and values percent-encoded.
    static func withQuery(_ url: String, _ parameters: [NamedText]) -> String {
        var base = Substring(url)
        var fragment: Substring = ""
        if let hash = base.firstIndex(of: "#") {
            fragment = base[hash...]
            base = base[..<hash]
        }
        var text = String(base)
        let encoded = parameters.map {
            percentEncoded($0.name) + "=" + percentEncoded($0.value)
        }.joined(separator: "&")
        if let question = text.firstIndex(of: "?") {
            if text.index(after: question) != text.endIndex, !text.hasSuffix("&") { text += "&" }
        } else {
            text += "?"
        }
        return text + encoded + fragment
    }

    /// RFC 3986 unreserved characters as they are, every other byte as
    /// `%XX` (a space is `%20`).
    static func percentEncoded(_ text: String) -> String {
        encoded(text, keeping: "-._~", spaceAsPlus: false)
    }

    private static func addIfMissing(_ headers: inout [(name: String, value: String)], _ name: String, _ value: String) {
        let lower = name.lowercased()
        if !headers.contains(where: { $0.name.lowercased() == lower }) { headers.append((name, value)) }
    }

    /// An RFC 9110 token.
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"):
                    return true
                default:
                    return "!#$%&'*+-.^_`|~".utf8.contains(byte)
                }
            }
    }

    /// `application/x-www-form-urlencoded` as browsers write it: letters,
    /// digits and `*-._` as they are, space as `+`, the rest percent-encoded.
    static func formEncoded(_ text: String) -> String {
        encoded(text, keeping: "*-._", spaceAsPlus: true)
    }

    /// Letters, digits and `keeping` as they are; a space as `+` when
    /// `spaceAsPlus`; every other byte as `%XX`.
    private static func encoded(_ text: String, keeping: String, spaceAsPlus: Bool) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        let kept = Set(keeping.utf8)
        var bytes: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                bytes.append(byte)
            case UInt8(ascii: " ") where spaceAsPlus:
                bytes.append(UInt8(ascii: "+"))
            default:
                if kept.contains(byte) {
                    bytes.append(byte)
                } else {
                    bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
                }
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension ResolvedHTTPRequest {
    /// `GET http://...`, for messages: made only when one is (not at every
    /// request).
    var label: String { "\(method.rawValue) \(url)" }
}
