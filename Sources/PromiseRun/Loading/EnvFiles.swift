import Glibc
import PromiseEngine
import WorkflowRun
import RunnerSystem
import WorkflowModel
import WorkflowLanguage

/// `--env-file PATH`: a `.env` file read before anything runs (the format
/// of `dotenv`, spec §12).
enum EnvFiles {
    /// The pairs, or a one-line problem saying where (`path:line:col`).
    static func load(_ path: String) -> Result<[(name: String, value: String)], EnvFileProblem> {
        guard let text = readText(path) else {
            return .failure(EnvFileProblem(message: "--env-file \(path): \(String(cString: strerror(errno)))"))
        }
        do {
            return .success(try Dotenv.parse(text, path: path))
        } catch {
            return .failure(EnvFileProblem(message: "\(error)"))
        }
    }

    private static func readText(_ path: String) -> String? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count > 0 { bytes += buffer[0..<count] }
            if count < buffer.count { break }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Why an env file cannot be used.
struct EnvFileProblem: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
