import Dispatch
import Glibc
import PromiseEngine
import RunnerSystem
import WorkflowModel

/// Runs `file` steps on a dispatch queue (they block on the disk). A
/// cancelled copy or write stops between chunks and leaves no partial file.
struct FileStepRunner: Sendable {
    let configuration: StepsConfiguration

    func run(_ operation: ResolvedFileOperation, in context: StepContext) -> Promise<StepResult> {
        let (promise, resolver) = Promise<StepResult>.pending()
        if resolver.isCancelRequested { return .cancelled() }
        let cancelled = CancelFlag()
        resolver.onCancel { cancelled.set() }
        let limit = configuration.bodyLimit
        DispatchQueue.global(qos: .userInitiated).async {
            let started = ContinuousClock.now
            let fileSystem = FileSystem(cancelled: cancelled)
            do {
                var result = try Self.perform(operation, fileSystem, in: context.workingDirectory, readLimit: limit)
                result.duration = started.duration(to: .now)
                if cancelled.isSet { resolver.cancel() } else { resolver.fulfill(result) }
            } catch is CancellationError {
                resolver.cancel()
            } catch {
                let message = "file \(operation.name) " + ((error as? FileError)?.description ?? "\(error)")
                resolver.reject(StepFailure(.file, message, result: StepResult(duration: started.duration(to: .now))))
            }
        }
        return promise
    }

    static func perform(
        _ operation: ResolvedFileOperation, _ fileSystem: FileSystem, in folder: String,
        readLimit: Int
    ) throws -> StepResult {
        func path(_ text: String) -> String {
            Paths.resolve(text, against: folder)
        }
        switch operation {
        case .write(let target, let content):
            let file = try FileSystem.followingLinks(path(target))
            var text = content
            try text.withUTF8 { try fileSystem.writeAtomically(file, contents: UnsafeRawBufferPointer($0)) }
            return StepResult(path: file)
        case .append(let target, let content):
            let file = path(target)
            var text = content
            try text.withUTF8 { try fileSystem.append(file, contents: UnsafeRawBufferPointer($0)) }
            return StepResult(path: file)
        case .read(let target):
            let file = path(target)
            // Regular files only: a FIFO or a terminal could hold the step past its timeout.
            let bytes = try fileSystem.read(file, limit: readLimit)
            return StepResult(path: file, content: String(decoding: bytes, as: UTF8.self))
        case .copy(let from, let to):
            let source = path(from)
            let destination = FileSystem.target(for: source, at: path(to))
            try fileSystem.copy(source, to: destination)
            return StepResult(path: destination)
        case .move(let from, let to):
            let source = path(from)
            let destination = FileSystem.target(for: source, at: path(to))
            try fileSystem.move(source, to: destination)
            return StepResult(path: destination)
        case .delete(let target):
            let file = path(target)
            // The executor refuses more (DeleteGuard); the root never goes.
            guard Paths.normalized(file) != "/" else { throw FileError(file, reason: "refused: the root folder") }
            try fileSystem.delete(file)
            return StepResult(path: file)
        case .mkdir(let target):
            let folder = path(target)
            try fileSystem.makeDirectories(folder)
            return StepResult(path: folder)
        case .exists(let target):
            let file = path(target)
            guard FileSystem.pathExists(file) else {
                let dangling = (try? FileSystem.linkInfo(file)) != nil
                throw FileError(file, reason: dangling ? "is a symbolic link to a missing path" : "does not exist")
            }
            return StepResult(path: file)
        }
    }
}
