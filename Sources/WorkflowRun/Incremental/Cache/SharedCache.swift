import Dispatch
import Glibc
package import PromiseEngine
import RunnerSystem
package import WorkflowModel

/// The shared cache of a run: looks a step's key up, restores
/// its files all or none, and stores a success's entry and files beside
/// the steps that follow. It can only save time: every problem is a
/// warning and the step runs; a store that timed out or could not be
/// reached once is not used again in the run (one warning, not one a
/// step); a store that refused a write is not written again.
/// See docs/language.md, 'A shared cache'.
package final class SharedCache: Sendable {
    package let location: CacheLocation
    let store: any CacheStore
    package let readOnly: Bool
    /// How long the run waits for the uploads still under way at its end.
    let drainLimit: Duration
    let clock: any PromiseClock

    private struct State {
        var unusable = false
        var writesRefused = false
        var warned: Set<String> = []
        var uploads: [Int: Promise<Void>] = [:]
        /// The upload work itself, to cancel at the drain limit.
        var chains: [Int: Promise<Void>] = [:]
        var nextUpload = 0
        var warn: (@Sendable (String) -> Void)?
        var bytesSent: Int64 = 0
    }
    private let state = Lock(State())

    /// `timeout`: for each request to an HTTP store.
    package init(
        location: CacheLocation, runner: any StepRunner, clock: any PromiseClock, timeout: Duration = .seconds(10),
        readOnly: Bool = false, drainLimit: Duration = .seconds(120)
    ) {
        self.location = location
        self.readOnly = readOnly
        self.drainLimit = drainLimit
        self.clock = clock
        switch location.kind {
        case .folder(let folder): store = FolderCacheStore(folder: folder, clock: clock, timeout: timeout)
        case .http(let base): store = HTTPCacheStore(base: base, location: location, runner: runner, clock: clock, timeout: timeout)
        }
    }

    /// Where warnings go (the executor's observer, secrets masked).
    package func onWarning(_ sink: @escaping @Sendable (String) -> Void) {
        state.withLock { $0.warn = sink }
    }

    /// Bytes of files and entries written to the store so far.
    package var bytesSent: Int64 { state.withLock { $0.bytesSent } }

    private var usable: Bool { state.withLock { !$0.unusable } }

    private func warn(_ message: String, once key: String? = nil) {
        let sink: (@Sendable (String) -> Void)? = state.withLock { state in
            if let key, !state.warned.insert(key).inserted { return nil }
            return state.warn
        }
        sink?("cache \(location.display): \(message)")
    }

    /// A problem with the store: said, and the store set aside when it
    /// cannot answer (unreachable, timed out, refusing to read).
    private func problem(_ error: any Error, step id: String, writing: Bool) {
        guard let problem = error as? CacheProblem else {
            warn("\(id): \(error); the step runs as if there were no cache")
            return
        }
        switch problem.kind {
        case .unreachable, .timeout:
            state.withLock { $0.unusable = true }
            warn("\(problem.message); not used for the rest of this run", once: "unusable")
        case .refused where writing:
            state.withLock { $0.writesRefused = true }
            warn("\(problem.message); nothing more is stored in it this run", once: "writes")
        case .refused:
            state.withLock { $0.unusable = true }
            warn("\(problem.message); not used for the rest of this run", once: "unusable")
        case .failed:
            warn("\(id): \(problem.message)" + (writing ? "; its entry is not stored" : "; the step runs as if there were no cache"))
        }
    }

    /// The key of a step with `sources` (nil for other steps).
    package func key(
        for step: ResolvedStep, workflowDirectory: String, workingDirectory: String,
        environment: [String: String]
    ) -> String? {
        CacheKey.compute(
            step: step, relativeFolder: CacheKey.relative(workingDirectory, to: workflowDirectory),
            workingDirectory: workingDirectory, environment: environment)
    }

    /// The stored entry under `key`; nil when there is none, when it is
    /// corrupt (said), or when the store cannot answer (said).
    func lookup(_ key: String, step id: String, staging: String) -> Promise<CacheEntry?> {
        guard usable else { return Promise(value: nil) }
        let path = Paths.join(staging, "entry-\(key.prefix(16))-\(UInt32.random(in: 0...UInt32.max))")
        do { try FileSystem().makeDirectories(staging) } catch {
            warn("\(id): \(error); the step runs as if there were no cache")
            return Promise(value: nil)
        }
        return store.download("ac/" + key, to: path, limit: FileSystem.inputLimit).derive(
            .inline,
            .outcome { [self] outcome in
                switch outcome {
                case .fulfilled(false): return .outcome(.fulfilled(nil))
                case .fulfilled(true):
                    let text = FileSystem.readText(path)
                    unlink(path)
                    guard case .success(let content) = text else {
                        warn("\(id): its entry could not be read back; the step runs")
                        return .outcome(.fulfilled(nil))
                    }
                    switch CacheEntry.parse(content) {
                    case .success(let entry): return .outcome(.fulfilled(entry))
                    case .failure(let why):
                        warn("\(id): its entry is corrupt (\(why.message)); the step runs, and its success replaces the entry")
                        return .outcome(.fulfilled(nil))
                    }
                case .rejected(let error):
                    unlink(path)
                    problem(error, step: id, writing: false)
                    return .outcome(.fulfilled(nil))
                case .cancelled:
                    unlink(path)
                    return .outcome(.cancelled)
                }
            })
    }

    /// Whether the store has an entry under `key` (for `--dry-run`); nil
    /// when it cannot say.
    package func contains(key: String) -> Promise<Bool?> {
        guard usable else { return Promise(value: nil) }
        return store.contains("ac/" + key).derive(
            .inline,
            .outcome { [self] outcome in
                if case .fulfilled(let found) = outcome { return .outcome(.fulfilled(found)) }
                if case .rejected(let error) = outcome { problem(error, step: "--dry-run", writing: false) }
                return .outcome(.fulfilled(nil))
            })
    }

    /// Restores the entry's files and links into `folder` (`CacheRestore`:
    /// only what the step's `generates` covers, never through a link, never
    /// the workflow's own files): each file is downloaded beside its place
    /// (at most its entry's size), its SHA-256 checked and its mode set;
    /// each link made beside its place; then all are renamed into place.
    /// True when all were; false (said) when any could not be, and then
    /// none is and nothing made is left.
    func restore(
        _ entry: CacheEntry, into folder: String, generates: [String], protected: Set<String>,
        step id: String
    ) -> Promise<Bool> {
        let restore: CacheRestore
        do throws(CacheProblem) {
            restore = try CacheRestore.prepare(entry, into: folder, generates: generates, protected: protected)
        } catch {
            warn("\(id): \(error.message); the step runs")
            return Promise(value: false)
        }
        return when(resolved: restore.downloads, limit: 16) { [store] item in
            let object = item.file.object ?? ("", 0)
            return store.download("cas/" + object.sha256, to: item.temporary, limit: object.size).map { found throws -> Void in
                guard found else {
                    throw CacheProblem(.failed, "\(item.file.path): its contents (\(object.sha256.prefix(12))…) are not in the cache")
                }
                try restore.check(item)
            }
        }.derive(
            .inline,
            .outcome { [self] outcome in
                guard case .fulfilled(let outcomes) = outcome else {
                    restore.discard()
                    return .outcome(.cancelled)
                }
                if let failed = outcomes.first(where: { $0.error != nil }), let error = failed.error {
                    restore.discard()
                    problem(error, step: id, writing: false)
                    return .outcome(.fulfilled(false))
                }
                if let failure = restore.commit() {
                    warn("\(id): \(failure); nothing was restored, the step runs")
                    return .outcome(.fulfilled(false))
                }
                return .outcome(.fulfilled(true))
            })
    }

    /// Stores a success: its generated files (those the store lacks), then
    /// its entry, beside the steps that follow; the run waits for them at
    /// its end (`finish`).
    /// `discovered`: what the step's depfile listed, with content hashes.
    func save(
        _ key: String, result: StepResult, generates: [String], folder: String, staging: String, step id: String,
        discovered: [String: String] = [:]
    ) {
        guard !readOnly, usable, !state.withLock({ $0.writesRefused }) else { return }
        let store = self.store
        let (done, resolver) = Promise<Void>.pending()
        let number: Int = state.withLock { state in
            state.nextUpload += 1
            state.uploads[state.nextUpload] = done
            return state.nextUpload
        }
        DispatchQueue.global().async { [self] in
            let files: [CacheEntry.File]
            do {
                files = try Self.describe(generates: generates, in: folder)
            } catch {
                warn("\(id): \(error); its entry is not stored")
                state.withLock { _ = $0.uploads.removeValue(forKey: number) }
                resolver.fulfill(())
                return
            }
            let entry = CacheEntry(
                exitCode: result.exitCode, stdout: result.stdout?.text ?? "", stderr: result.stderr?.text ?? "",
                captures: result.captures, files: files, discovered: discovered)
            let entryPath = Paths.join(staging, "put-\(key.prefix(16))-\(UInt32.random(in: 0...UInt32.max))")
            var bytes = Array(entry.json.utf8)
            let entrySize = Int64(bytes.count)
            do {
                try bytes.withUnsafeMutableBytes { try FileSystem().writeAtomically(entryPath, contents: UnsafeRawBufferPointer($0), durable: false) }
            } catch {
                warn("\(id): \(error); its entry is not stored")
                state.withLock { _ = $0.uploads.removeValue(forKey: number) }
                resolver.fulfill(())
                return
            }
            // Unique contents once each (a link has none); then the entry
            // that names them.
            var unique: [String: (path: String, size: Int)] = [:]
            for file in files {
                if let object = file.object { unique[object.sha256] = (file.path, object.size) }
            }
            let uploads = when(fulfilled: unique.sorted { $0.key < $1.key }, limit: 8) { sha256, file in
                store.contains("cas/" + sha256).then { present -> Promise<Void> in
                    if present { return Promise(value: ()) }
                    // A step that followed may have put a link in its place: never read through it.
                    let source = Paths.absolute(file.path, from: folder)
                    guard let info = try? FileSystem.linkInfo(source), FileSystem.isRegularFile(info) else {
                        return Promise(error: CacheProblem(.failed, "\(file.path) is no longer a regular file"))
                    }
                    return store.upload("cas/" + sha256, file: source).map { [self] in
                        state.withLock { $0.bytesSent += Int64(file.size) }
                    }
                }
            }.then { _ in store.upload("ac/" + key, file: entryPath) }
            state.withLock { $0.chains[number] = uploads }
            _ = uploads.derive(
                .inline,
                .outcome { [self] (outcome: Outcome<Void>) -> Next<Void> in
                    unlink(entryPath)
                    switch outcome {
                    case .fulfilled: state.withLock { $0.bytesSent += entrySize }
                    case .rejected(let error): problem(error, step: id, writing: true)
                    case .cancelled: break
                    }
                    state.withLock { state in
                        state.uploads.removeValue(forKey: number)
                        state.chains.removeValue(forKey: number)
                    }
                    resolver.fulfill(())
                    return .outcome(.fulfilled(()))
                })
        }
    }

    /// What `generates` matches (a folder: every path below it), relative
    /// to `folder`, never read through a link: a regular file with its
    /// mode, size and SHA-256; a symbolic link with its target text (a
    /// link to a folder is the link; its target is never read, whether it
    /// dangles or leads out of the checkout); a file with another name
    /// earlier in the list (the same inode) as a hard link of it. A path
    /// reached through a link of the list is left to that link; one reached
    /// through another link means no entry: it would restore less than the
    /// step made, or read what the link leads to.
    static func describe(generates: [String], in folder: String) throws -> [CacheEntry.File] {
        // Each path once, however the patterns wrote it (`./out`, `out/**`).
        var relatives: Set<String> = []
        for pattern in generates {
            for name in SourceGlob.matches(pattern, base: folder) {
                let path = Paths.absolute(name, from: folder)
                let relative = CacheKey.relative(path, to: folder)
                guard CacheEntry.isContained(relative) else {
                    throw FileError(path, reason: "generated outside the step's folder, so the cache cannot restore it")
                }
                relatives.insert(relative)
            }
        }
        var files: [CacheEntry.File] = []
        var links: Set<String> = []
        var folders: Set<String> = []
        var inodes: [InodeNumber: String] = [:]
        // Sorted, a link comes before the paths reached through it.
        for relative in relatives.sorted() {
            let path = Paths.absolute(relative, from: folder)
            if let link = try linkOnTheWay(to: relative, in: folder, folders: &folders) {
                if links.contains(link) { continue }
                throw FileError(
                    path,
                    reason: "is reached through the symbolic link \(link), which the cache never follows; "
                        + "the step's entry is not stored (let generates match the link itself)")
            }
            var info = stat()
            guard lstat(path, &info) == 0 else { throw FileError(path) }
            switch info.st_mode & S_IFMT {
            case S_IFLNK:
                files.append(CacheEntry.File(path: relative, kind: .link(target: try FileSystem.linkTarget(path))))
                links.insert(relative)
            case S_IFREG:
                let inode = InodeNumber(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
                if info.st_nlink > 1, let first = inodes[inode] {
                    files.append(CacheEntry.File(path: relative, kind: .hardLink(of: first)))
                    continue
                }
                inodes[inode] = relative
                guard let digest = SHA256.hex(ofFile: path) else { throw FileError(path) }
                files.append(
                    CacheEntry.File(
                        path: relative,
                        kind: .file(
                            sha256: digest, size: Int(info.st_size),
                            mode: UInt32(info.st_mode & 0o7777))))
            default:
                continue
            }
        }
        return files
    }

    /// A file's identity: two names with the same are hard links.
    private struct InodeNumber: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    /// The first folder on the way to `relative` (below `folder`) that is
    /// a symbolic link, relative; nil when all are real folders.
    /// `folders`: those already found real.
    private static func linkOnTheWay(to relative: String, in folder: String, folders: inout Set<String>) throws -> String? {
        var prefix = ""
        for name in relative.split(separator: "/").dropLast() {
            prefix += prefix.isEmpty ? String(name) : "/" + name
            if folders.contains(prefix) { continue }
            var info = stat()
            let path = folder + "/" + prefix
            guard lstat(path, &info) == 0 else { throw FileError(path) }
            if FileSystem.isSymbolicLink(info) { return prefix }
            folders.insert(prefix)
        }
        return nil
    }

    /// Waits for the uploads under way (at most `drainLimit`; those still
    /// going then are cancelled, said).
    package func finish() -> Promise<Void> {
        let pending = state.withLock { Array($0.uploads.values) }
        let chains: @Sendable () -> [Promise<Void>] = { [self] in state.withLock { Array($0.chains.values) } }
        guard !pending.isEmpty else { return Promise(value: ()) }
        let all = when(resolved: pending)
        let limit = drainLimit
        let timer = clock.schedule(after: limit) { [self] in
            warn("uploads still under way after \(DurationText.format(limit)) were stopped; their steps are not stored")
            for chain in chains() { chain.cancel() }
        }
        return all.derive(
            .inline,
            .outcome { _ in
                timer.cancel()
                return .outcome(.fulfilled(()))
            })
    }
}
