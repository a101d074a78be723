#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PromiseEngine
import WorkflowRun
import WorkflowModel
import WorkflowLanguage

/// Reads a workflow file, or standard input for `-`.
enum SourceReader {
    /// The file, or the one-line reason it cannot be read:
    /// `cannot read 'x.workflow': No such file or directory`.
    static func read(_ path: String) -> Result<SourceFile, ReadError> {
        let descriptor: Int32
        if path == "-" {
            descriptor = 0
        } else {
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return .failure(ReadError(path: path, code: errno)) }
        }
        defer { if descriptor != 0 { close(descriptor) } }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(ReadError(path: path, code: errno))
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return .success(SourceFile(path: path, bytes: bytes))
    }

    struct ReadError: Error {
        var path: String
        var code: Int32

        var message: String {
            let reason = strerror(code).map { String(cString: $0) } ?? "error \(code)"
            return "cannot read '\(path == "-" ? "<stdin>" : path)': \(reason)"
        }
    }
}
