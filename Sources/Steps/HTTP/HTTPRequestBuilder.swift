import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PromiseEngine

/// What to send: the URLRequest, and the file to stream as the body
/// (`body file`), if any.
struct PreparedRequest {
    var request: URLRequest
    var bodyFile: URL?
}

/// Turns an `http` step (its templates resolved) into a URLRequest.
enum HTTPRequestBuilder {
    /// Thrown for what cannot be sent: a bad URL (kind `network`) or a
    /// missing body file (kind `file`).
    static func prepare(_ step: HTTPRequest, workingDirectory: String) throws(StepFailure) -> PreparedRequest {
        let text = step.url.literalValue ?? ""
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", url.host != nil else {
            throw StepFailure(.network, "\(step.method.rawValue) \(text): not an http:// or https:// URL")
        }
        var request = URLRequest(url: url)
        request.httpMethod = step.method.rawValue
        for header in step.headers {
            request.addValue(header.value.literalValue ?? "", forHTTPHeaderField: header.name)
        }
        var bodyFile: URL?
        switch step.body {
        case .none:
            break
        case .text(let body):
            request.httpBody = Data((body.literalValue ?? "").utf8)
        case .json(let body):
            request.httpBody = Data((body.literalValue ?? "").utf8)
            setIfMissing(&request, "Content-Type", "application/json")
        case .form(let fields):
            let encoded = fields.map { formEncoded($0.name) + "=" + formEncoded($0.value.literalValue ?? "") }
            request.httpBody = Data(encoded.joined(separator: "&").utf8)
            setIfMissing(&request, "Content-Type", "application/x-www-form-urlencoded")
        case .file(let path):
            let file = Paths.resolve(path.literalValue ?? "", against: workingDirectory)
            var info = stat()
            guard stat(file, &info) == 0 else {
                throw StepFailure(.file, "\(step.method.rawValue) \(text): body file \(file): \(systemReason(errno))")
            }
            guard (info.st_mode & S_IFMT) == S_IFREG else {
                throw StepFailure(.file, "\(step.method.rawValue) \(text): body file \(file) is not a regular file")
            }
            bodyFile = URL(fileURLWithPath: file)
            setIfMissing(&request, "Content-Length", String(info.st_size))
        }
        return PreparedRequest(request: request, bodyFile: bodyFile)
    }

    private static func setIfMissing(_ request: inout URLRequest, _ name: String, _ value: String) {
        if request.value(forHTTPHeaderField: name) == nil {
            request.setValue(value, forHTTPHeaderField: name)
        }
    }

    /// `application/x-www-form-urlencoded` as browsers write it: letters,
    /// digits and `*-._` as they are, space as `+`, the rest percent-encoded.
    static func formEncoded(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "*"), UInt8(ascii: "-"),
                 UInt8(ascii: "."), UInt8(ascii: "_"):
                bytes.append(byte)
            case UInt8(ascii: " "):
                bytes.append(UInt8(ascii: "+"))
            default:
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
