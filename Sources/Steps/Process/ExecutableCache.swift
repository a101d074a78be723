import CSystemShims
import Glibc
import PromiseEngine
import RunnerSystem
import WorkflowModel

/// Where bare program names were found in PATH, remembered, so that a
/// thousand `sh "make test"` steps do not look in every PATH folder a
/// thousand times (with this machine's PATH, eight failed `stat` calls a
/// step before `/usr/bin`).
///
/// Never stale, unlike a shell's `hash`: every folder a search looks in is
/// watched with inotify (a folder that does not exist through its nearest
/// existing parent, so that making it is seen), and any change in one of
/// them (a program added, removed, renamed or made executable, a folder
/// made or moved) forgets everything before the next lookup reads the
/// cache. A program installed mid-run earlier in PATH is found by the next
/// step, as `execvp` would find it. Where inotify is not to be had
/// (the per-user limit reached), nothing is cached and every lookup
/// searches.
final class ExecutableCache: Sendable {
    static let shared = ExecutableCache()

    private struct Key: Hashable {
        var searchPath: String
        var program: String
        var workingDirectory: String
    }

    private struct State {
        var found: [Key: String] = [:]
        /// Each folder under watch, and the path watched for it: itself, or
        /// its nearest existing parent while it does not exist.
        var watched: [String: String] = [:]
        /// Bumped whenever a change empties `found`.
        var generation = 0
        /// The last lookup found, compared before `found` is hashed: a
        /// foreach's steps mostly start one program.
        var last: (key: Key, found: String)?
    }

    private let inotify: Int32
    private let state = Lock(State())

    init() {
        inotify = csh_inotify_open()
    }

    deinit {
        if inotify >= 0 { close(inotify) }
    }

    /// `ExecutableLookup.resolve`, remembered for bare names.
    func resolve(_ program: String, environment: [String: String], workingDirectory: String) throws(SpawnError) -> String {
        guard inotify >= 0, !program.isEmpty, !ASCIIByte.occurs(UInt8(ascii: "/"), in: program) else {
            return try ExecutableLookup.resolve(program, environment: environment, workingDirectory: workingDirectory)
        }
        let searchPath = environment["PATH"] ?? ExecutableLookup.defaultSearchPath
        let key = Key(searchPath: searchPath, program: program, workingDirectory: workingDirectory)
        let cached: String? = state.withLock { state in
            applyChanges(&state)
            if let last = state.last, last.key == key { return last.found }
            let found = state.found[key]
            if let found { state.last = (key, found) }
            return found
        }
        if let cached { return cached }

        // Watch first, then search: a change made during the search is seen.
        let folders = ExecutableLookup.folders(of: searchPath, workingDirectory: workingDirectory)
        let before: Int? = state.withLock { state in
            for folder in folders where state.watched[folder] == nil {
                guard let path = watch(folder) else { return nil }
                state.watched[folder] = path
            }
            applyChanges(&state)
            return state.generation
        }
        let found = try ExecutableLookup.resolve(program, environment: environment, workingDirectory: workingDirectory)
        if let before {
            state.withLock { state in
                applyChanges(&state)
                if state.generation == before { state.found[key] = found }
            }
        }
        return found
    }

    /// Reads what inotify queued; any change forgets every lookup.
    private func applyChanges(_ state: inout State) {
        let changes = csh_inotify_drain(inotify)
        guard changes != 0 else { return }
        state.found.removeAll()
        state.last = nil
        state.generation += 1
        if changes & 2 != 0 {
            // A watched folder went away (or events were lost): watch anew.
            state.watched.removeAll()
        } else {
            // A folder watched through a parent may exist now: watch it.
            state.watched = state.watched.filter { $0.key == $0.value }
        }
    }

    /// Watches `folder`, or the nearest parent that exists when it does
    /// not; returns the path watched.
    private func watch(_ folder: String) -> String? {
        var path = folder
        while true {
            if csh_inotify_watch(inotify, path) >= 0 { return path }
            guard errno == ENOENT || errno == ENOTDIR else { return nil }
            let parent = Paths.parent(of: path)
            if parent == path { return nil }
            path = parent
        }
    }
}
