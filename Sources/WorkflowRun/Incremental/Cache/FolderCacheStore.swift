import Dispatch
import Glibc
import PromiseEngine
import RunnerSystem
import WorkflowModel

/// A cache in a folder (a mounted share, `file:///mnt/cache`): objects are
/// files under it, written to a temporary file and renamed into place, so
/// a reader on another machine never sees a part. Every request has
/// `timeout` (a hung mount is `timeout`, as an HTTP store's silence is)
/// and stops when cancelled; an object is read only when it is a regular
/// file of at most the size asked for (a FIFO or a link to `/dev/zero`
/// planted in the store is refused, not read forever).
struct FolderCacheStore: CacheStore {
    let folder: String
    let clock: any PromiseClock
    let timeout: Duration

    private func onWorker<Value: Sendable>(
        _ what: String,
        _ work: @escaping @Sendable (CancelFlag) throws(CacheProblem) -> Value
    ) -> Promise<Value> {
        let (promise, resolver) = Promise<Value>.pending()
        let cancelled = CancelFlag()
        let limit = timeout
        let timer = clock.schedule(after: limit) {
            cancelled.set()
            resolver.reject(CacheProblem(.timeout, "\(what): no answer within \(DurationText.format(limit))"))
        }
        resolver.onCancel {
            cancelled.set()
            timer.cancel()
            resolver.cancel()
        }
        DispatchQueue.global().async {
            do throws(CacheProblem) {
                let value = try work(cancelled)
                timer.cancel()
                resolver.fulfill(value)
            } catch {
                timer.cancel()
                resolver.reject(error)
            }
        }
        return promise
    }

    func download(_ name: String, to path: String, limit: Int) -> Promise<Bool> {
        let source = Paths.join(folder, name)
        return onWorker("reading \(source)") { [folder] cancelled throws(CacheProblem) -> Bool in
            guard FileSystem.pathExists(source) else {
                if !FileSystem.directoryExists(folder) {
                    throw CacheProblem(.unreachable, "the folder \(folder) does not exist (make it, or mount the share)")
                }
                return false
            }
            do {
                try Self.copy(source, to: path, limit: limit, cancelled: cancelled)
                return true
            } catch is CancellationError {
                throw CacheProblem(.failed, "reading \(source): stopped")
            } catch {
                throw CacheProblem(.failed, "reading \(source): \(error)")
            }
        }
    }

    func contains(_ name: String) -> Promise<Bool> {
        let path = Paths.join(folder, name)
        return onWorker("looking for \(path)") { _ throws(CacheProblem) -> Bool in FileSystem.pathExists(path) }
    }

    func upload(_ name: String, file path: String) -> Promise<Void> {
        let target = Paths.join(folder, name)
        return onWorker("writing \(target)") { cancelled throws(CacheProblem) -> Void in
            do {
                try Self.copy(path, to: target, limit: .max, cancelled: cancelled)
            } catch {
                throw CacheProblem(.refused, "writing \(target): \(error)")
            }
        }
    }

    /// Copies a regular file's bytes (at most `limit`) into a temporary
    /// file beside `target`, then renames it over `target`.
    static func copy(_ source: String, to target: String, limit: Int, cancelled: CancelFlag) throws {
        // Not waiting in open: a FIFO is refused below, not waited on.
        let input = open(source, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard input >= 0 else { throw FileError(source) }
        defer { close(input) }
        var info = stat()
        guard fstat(input, &info) == 0 else { throw FileError(source) }
        guard FileSystem.isRegularFile(info) else {
            throw FileError(source, reason: "is \(FileSystem.kindName(info)), not a regular file; refused")
        }
        guard Int(info.st_size) <= limit else {
            throw FileError(source, reason: "\(info.st_size) bytes, more than the \(limit) its entry says; refused")
        }
        _ = fcntl(input, F_SETFL, fcntl(input, F_GETFL) & ~O_NONBLOCK)
        let fileSystem = FileSystem(cancelled: cancelled)
        try fileSystem.makeDirectories(Paths.parent(of: target))
        let (temporary, output) = try FileSystem.createTemporaryFile(near: target)
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var total = 0
        do {
            while true {
                try fileSystem.checkCancelled()
                let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                if count < 0 { throw FileError(source) }
                if count == 0 { break }
                total += count
                // A file that grows while read is held to the same bound.
                guard total <= limit else { throw FileError(source, reason: "more than the \(limit) bytes its entry says; refused") }
                try buffer.withUnsafeBytes { try fileSystem.writeAll(output, UnsafeRawBufferPointer(rebasing: $0[0..<count]), path: temporary) }
            }
        } catch {
            close(output)
            unlink(temporary)
            throw error
        }
        // `commit` closes the descriptor whatever happens.
        do {
            try FileSystem.commit(output, temporary: temporary, to: target, durable: false)
        } catch {
            unlink(temporary)
            throw error
        }
    }
}
