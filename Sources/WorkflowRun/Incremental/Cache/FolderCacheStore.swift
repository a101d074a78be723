import Dispatch
import Glibc
import PromiseEngine
import RunnerSystem

/// A cache in a folder (a mounted share, `file:///mnt/cache`): objects are
/// files under it, written to a temporary file and renamed into place, so
/// a reader on another machine never sees a part.
struct FolderCacheStore: CacheStore {
    let folder: String

    private func onWorker<Value: Sendable>(_ work: @escaping @Sendable () throws(CacheProblem) -> Value) -> Promise<Value> {
        let (promise, resolver) = Promise<Value>.pending()
        DispatchQueue.global().async {
            do throws(CacheProblem) { resolver.fulfill(try work()) } catch { resolver.reject(error) }
        }
        return promise
    }

    func download(_ name: String, to path: String) -> Promise<Bool> {
        let source = Paths.join(folder, name)
        return onWorker { () throws(CacheProblem) -> Bool in
            guard FileSystem.pathExists(source) else {
                if !FileSystem.directoryExists(folder) {
                    throw CacheProblem(.unreachable, "the folder \(folder) does not exist")
                }
                return false
            }
            do {
                try Self.copy(source, to: path)
                return true
            } catch {
                throw CacheProblem(.failed, "reading \(source): \(error)")
            }
        }
    }

    func contains(_ name: String) -> Promise<Bool> {
        let path = Paths.join(folder, name)
        return onWorker { () throws(CacheProblem) -> Bool in FileSystem.pathExists(path) }
    }

    func upload(_ name: String, file path: String) -> Promise<Void> {
        let target = Paths.join(folder, name)
        return onWorker { () throws(CacheProblem) -> Void in
            do {
                try Self.copy(path, to: target)
            } catch {
                throw CacheProblem(.refused, "writing \(target): \(error)")
            }
        }
    }

    /// Copies a file's bytes into a temporary file beside `target`, then
    /// renames it over `target`.
    static func copy(_ source: String, to target: String) throws {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw FileError(source) }
        defer { close(input) }
        try FileSystem().makeDirectories(Paths.parent(of: target))
        let (temporary, output) = try FileSystem.createTemporaryFile(near: target)
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        do {
            while true {
                let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                if count < 0 { throw FileError(source) }
                if count == 0 { break }
                try buffer.withUnsafeBytes { try FileSystem().writeAll(output, UnsafeRawBufferPointer(rebasing: $0[0..<count]), path: temporary) }
            }
            try FileSystem.commit(output, temporary: temporary, to: target, durable: false)
        } catch {
            unlink(temporary)
            throw error
        }
    }
}
