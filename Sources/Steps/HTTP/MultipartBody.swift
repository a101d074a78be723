import Glibc
import JSON
import PromiseEngine
import RunnerSystem
import WorkflowModel

/// A `multipart/form-data` body (RFC 7578) from `multipart` attributes:
/// text parts, and file parts with the file's name and a media type (the
/// one written, else one guessed from the extension).
enum MultipartBody {
    /// The body's bytes and its boundary. Files are read whole (kind
    /// `file` when one cannot be read).
    static func make(
        _ parts: [ResolvedMultipartPart], workingDirectory: String,
        label: String
    ) throws(StepFailure) -> (bytes: [UInt8], boundary: String) {
        var contents: [(head: String, body: [UInt8])] = []
        for part in parts {
            let name = quoted(part.name)
            switch part.content {
            case .text(let value):
                contents.append(("Content-Disposition: form-data; name=\"\(name)\"\r\n", Array(value.utf8)))
            case .file(let given, let type):
                let path = Paths.resolve(given, against: workingDirectory)
                let bytes = try contentsOf(path, label: label)
                let filename = quoted(String(path.split(separator: "/").last ?? ""))
                if let type, let control = ControlCharacters.first(in: type) {
                    throw StepFailure(
                        .network,
                        "\(label): the type of multipart part '\(part.name)' has a control character "
                            + "(\(ControlCharacters.escape(control))); it cannot be sent")
                }
                let mediaType = type ?? guessType(path)
                contents.append(
                    (
                        "Content-Disposition: form-data; name=\"\(name)\"; filename=\"\(filename)\"\r\n"
                            + "Content-Type: \(mediaType)\r\n", bytes
                    ))
            }
        }
        // A boundary that no part contains.
        var boundary = ""
        repeat {
            boundary = "promise-run-" + randomHex(16)
        } while contents.contains { contains($0.body, Array(boundary.utf8)) }
        var body: [UInt8] = []
        for content in contents {
            body += Array("--\(boundary)\r\n\(content.head)\r\n".utf8)
            body += content.body
            body += Array("\r\n".utf8)
        }
        body += Array("--\(boundary)--\r\n".utf8)
        return (body, boundary)
    }

    /// A name or filename inside `"..."`, as browsers write it: `"` as
    /// `%22`, CR and LF as `%0D` and `%0A` (on scalars: a CR LF is one
    /// `Character`, which neither `"\r"` nor `"\n"` matches).
    static func quoted(_ text: String) -> String {
        text.replacingScalars { scalar in
            switch scalar {
            case "\"": "%22"
            case "\r": "%0D"
            case "\n": "%0A"
            default: nil
            }
        }
    }

    /// A media type from the file's extension; `application/octet-stream`
    /// when unknown.
    static func guessType(_ path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "application/octet-stream" }
        let types = [
            "txt": "text/plain", "text": "text/plain", "md": "text/markdown", "csv": "text/csv", "html": "text/html",
            "htm": "text/html", "css": "text/css", "js": "text/javascript", "json": "application/json",
            "xml": "application/xml", "pdf": "application/pdf", "zip": "application/zip", "gz": "application/gzip",
            "tar": "application/x-tar", "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif",
            "svg": "image/svg+xml", "webp": "image/webp", "mp4": "video/mp4", "mp3": "audio/mpeg", "wasm": "application/wasm",
        ]
        return types[name[name.index(after: dot)...].lowercased()] ?? "application/octet-stream"
    }

    private static func contentsOf(_ path: String, label: String) throws(StepFailure) -> [UInt8] {
        do {
            return try FileSystem().read(path)
        } catch let error as FileError {
            throw StepFailure(.file, "\(label): multipart file \(path): \(error.reason)")
        } catch {
            throw StepFailure(.file, "\(label): multipart file \(path): \(error)")
        }
    }

    private static func randomHex(_ count: Int) -> String {
        var bytes = [UInt8](repeating: 0, count: count)
        for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255) }
        let hex = Array("0123456789abcdef".utf8)
        return String(decoding: bytes.flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 0x0F)]] }, as: UTF8.self)
    }

    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard haystack.count >= needle.count, let first = needle.first else { return false }
        var index = 0
        while index <= haystack.count - needle.count {
            if haystack[index] == first, haystack[index..<(index + needle.count)].elementsEqual(needle) { return true }
            index += 1
        }
        return false
    }
}
