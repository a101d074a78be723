import CommandLineOptions
import Glibc
import PromiseEngine
import RunnerSystem
import WorkflowLanguage
import WorkflowModel
import WorkflowRun

/// `--env-file PATH`: a `.env` file read before anything runs (the format
/// of `dotenv`).
/// See docs/language.md, 'Targets, desc, allow-failure, dotenv'.
enum EnvFiles {
    /// The pairs, or a one-line problem saying where (`path:line:col`).
    static func load(_ path: String) -> Result<[(name: String, value: String)], EnvFileProblem> {
        let text: String
        switch FileSystem.readText(path) {
        case .success(let read): text = read
        case .failure(let error): return .failure(EnvFileProblem(message: "\(Option.envFile.spec.long) \(path): \(error.reason)"))
        }
        do {
            return .success(try Dotenv.parse(text, path: path))
        } catch {
            return .failure(EnvFileProblem(message: "\(error)"))
        }
    }
}

/// Why an env file cannot be used.
struct EnvFileProblem: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
