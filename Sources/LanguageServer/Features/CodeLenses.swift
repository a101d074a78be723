import Dispatch
import Glibc
import JSON
import RunnerSystem
import WorkflowLanguage
package import WorkflowModel

/// What the code lens reads of the local store beside a workflow. The
/// executable passes the runner's: this target never reads the store
/// itself.
/// See docs/language.md, 'Editors'.
package struct LocalStore: Sendable {
    /// What the next run would do with each step that has `sources`, and
    /// why (`--dry-run`'s verdict), by step id.
    package typealias StepVerdicts = @Sendable (_ workflow: Workflow, _ currentDirectory: String) -> [(id: String, verdict: String)]

    package var verdicts: StepVerdicts
    /// By label, how each step of the workflow in this folder ended the
    /// last time it ran, as the lens says it (`✓ 2.1s, 3 minutes ago`).
    package var lastResults: @Sendable (_ workflowDirectory: String) -> [String: String]
    /// The files and folders of the store of the workflow in this folder
    /// whose change changes the lenses: watched (their folders' entries).
    package var watched: @Sendable (_ workflowDirectory: String) -> [String]
    /// The same as globs under any folder (`**/.promise-run/**`): what a
    /// client that watches files for the server is asked to watch.
    package var patterns: [String]

    package init(
        verdicts: @escaping StepVerdicts,
        lastResults: @escaping @Sendable (_ workflowDirectory: String) -> [String: String] = { _ in [:] },
        watched: @escaping @Sendable (_ workflowDirectory: String) -> [String] = { _ in [] },
        patterns: [String] = []
    ) {
        self.verdicts = verdicts
        self.lastResults = lastResults
        self.watched = watched
        self.patterns = patterns
    }
}

/// What `stat` says of a watched file of the store: a new write (always a
/// rename: a new inode) or a removal changes it.
struct FileStamp: Equatable {
    var exists = false
    var inode: UInt = 0
    var size = 0
    var modified = 0

    init(_ path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return }
        exists = true
        inode = UInt(info.st_ino)
        size = Int(info.st_size)
        modified = Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec)
    }
}

extension LanguageServer {
    /// The lenses on each labelled step of this file: the last
    /// result the store holds for it, and for a step with `sources` whether
    /// the next run would run it and why (`--dry-run`'s verdict; not for a
    /// file with errors). An included file's steps are its includer's: its
    /// store, its run. Asking for them starts the store's watch, when the
    /// client can be asked to refresh them.
    func codeLenses(_ document: OpenDocument) -> JSONValue {
        guard let store else { return .array([]) }
        let analysis = analysis(of: document)
        let root = Paths.normalized(analysis.source.path)
        let folder = Paths.parent(of: root)
        // Watched before the store is read: a change after this refreshes.
        watchStore(of: folder)
        var verdicts: [String: String] = [:]
        if !analysis.diagnostics.contains(where: { $0.severity == .error }),
            let bytes = overlay[root] ?? diskTexts[root] ?? (try? FileSystem.readBytes(root).get()),
            let workflow = WorkflowCompiler.compile(SourceFile(path: root, bytes: bytes), overlay: overlay).workflow
        {
            for (id, verdict) in store.verdicts(workflow, folder) where verdicts[id] == nil { verdicts[id] = verdict }
        }
        let results = store.lastResults(folder)
        var lenses: [JSONValue] = []
        var seen: Set<String> = []
        for definition in analysis.index.definitions where definition.kind == .label && seen.insert(definition.name).inserted {
            let titles = [results[definition.name], verdicts[definition.name]].compactMap { $0 }
            guard !titles.isEmpty, let offset = document.documentOffset(definition.range.start, in: analysis) else { continue }
            let start = TextPosition(line: document.lines.line(of: offset), character: 0)
            for title in titles {
                lenses.append(
                    .object([
                        ("range", TextRange(start: start, end: start).json),
                        ("command", .object([("title", .string(title)), ("command", .string(""))])),
                    ]))
            }
        }
        return .array(lenses)
    }

    /// Watches the store of the workflow in `folder` (when the client can
    /// be asked to refresh the lenses): its files as they are now, and,
    /// unless the client watches files for the server, the folders on
    /// their way, whose entries change when the runner writes.
    func watchStore(of folder: String) {
        guard let store, refreshesLenses else { return }
        let paths = store.watched(folder)
        if !clientWatchesFiles {
            let watcher = storeWatcher ?? FolderWatcher { [self] in queue.async { self.storeChanged() } }
            storeWatcher = watcher
            for path in Self.foldersOnTheWay(to: paths, from: folder) { watcher.watch(path) }
        }
        storeStamps[folder] = paths.map(FileStamp.init)
    }

    /// Something in a watched folder changed (or the client said a file of
    /// a store did): the lenses are refreshed when a store's files differ
    /// from what they were. A folder made since (the store's first run) is
    /// watched from now on.
    func storeChanged() {
        guard let store, refreshesLenses else { return }
        var changed = false
        for (folder, stamps) in storeStamps {
            let paths = store.watched(folder)
            if let storeWatcher {
                for path in Self.foldersOnTheWay(to: paths, from: folder) { storeWatcher.watch(path) }
            }
            let now = paths.map(FileStamp.init)
            if now != stamps {
                storeStamps[folder] = now
                changed = true
            }
        }
        if changed { sendRequest("workspace/codeLens/refresh", .null) }
    }

    /// `folder` and every folder from it to each path (the path too): the
    /// entries whose change is a write of the path, or of the folders that
    /// hold it coming or going.
    static func foldersOnTheWay(to paths: [String], from folder: String) -> [String] {
        var folders: [String] = [folder]
        for path in paths where path.hasPrefix(folder + "/") {
            var walked = folder
            for part in path.dropFirst(folder.count + 1).split(separator: "/") {
                walked += "/" + part
                if !folders.contains(walked) { folders.append(walked) }
            }
        }
        return folders
    }
}
