import Glibc
import PromiseEngine
import RunnerSystem
import WorkflowLanguage
import WorkflowModel
import WorkflowRun

/// Reads a workflow file, or standard input for `-`.
enum SourceReader {
    /// The file (a regular file of at most `FileSystem.inputLimit` bytes),
    /// or the one-line reason it cannot be read:
    /// `cannot read 'x.workflow': No such file or directory`.
    static func read(_ path: String) -> Result<SourceFile, ReadError> {
        do {
            let bytes =
                path == "-"
                ? try FileSystem().readStandardInput(limit: FileSystem.inputLimit)
                : try FileSystem().read(path, limit: FileSystem.inputLimit)
            return .success(SourceFile(path: path, bytes: bytes))
        } catch let error as FileError {
            return .failure(ReadError(path: path, reason: error.reason))
        } catch {
            return .failure(ReadError(path: path, reason: "\(error)"))
        }
    }

    struct ReadError: Error {
        var path: String
        var reason: String

        var message: String {
            "cannot read '\(path == "-" ? "<stdin>" : path)': \(reason)"
        }
    }
}
