import CSystemShims
import Glibc
import PromiseEngine

/// `--watch`: waits until a file the workflow reads changes. Folders are
/// watched with inotify (every folder a pattern can reach, `**` ones whole);
/// on an event, the watcher waits for the burst to end (an editor's save is
/// several events), then compares the matched files' names, sizes and
/// modification times with the snapshot taken when it was made, so that
/// files the run writes itself (reports, `.promise-run/`) start nothing.
package final class ChangeWatcher: @unchecked Sendable {
    // @unchecked: used by one thread at a time (made, then waited on).
    private let patterns: [(pattern: String, base: String)]
    private let files: [String]
    private let ignoring: [(pattern: String, base: String)]
    private let ignoredFiles: Set<String>
    private let generated: GeneratedOutputs?
    private let descriptor: Int32
    private var snapshot: [String: (Int, Int)]

    /// - Parameters:
    ///   - patterns: globs with the folders they are relative to;
    ///   - files: more files to watch (the workflow file itself).
    ///   - ignoring: globs of files whose changes never count (what the
    ///     build itself generates), with their folders;
    ///   - ignoredFiles: more such files, absolute;
    ///   - generated: patterns added while the runs go on (a foreach's
    ///     interpolated `generates`).
    package init(
        patterns: [(pattern: String, base: String)], files: [String],
        ignoring: [(pattern: String, base: String)] = [], ignoredFiles: Set<String> = [],
        generated: GeneratedOutputs? = nil
    ) {
        self.generated = generated
        self.patterns = patterns
        self.files = files
        self.ignoring = ignoring
        self.ignoredFiles = ignoredFiles
        descriptor = csh_inotify_open()
        snapshot = [:]
        snapshot = takeSnapshot()
        for folder in folders() { _ = csh_inotify_watch_changes(descriptor, folder) }
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// How many files are watched.
    package var count: Int { snapshot.count }

    /// Blocks until a watched file changed (returning its path, or the
    /// folder's for a file made or removed), or until `stop` says so
    /// (checked every 100 ms; returns nil).
    package func waitForChange(debounce: Duration = .milliseconds(30), stop: () -> Bool) -> String? {
        guard descriptor >= 0 else { return nil }
        while !stop() {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, 100)
            guard ready > 0 else { continue }
            _ = csh_inotify_drain(descriptor)
            // The rest of the burst.
            let quiet = Int32(debounce.components.attoseconds / 1_000_000_000_000_000) + Int32(debounce.components.seconds * 1000)
            while poll(&entry, 1, max(1, quiet)) > 0 { _ = csh_inotify_drain(descriptor) }
            let now = takeSnapshot()
            if let changed = difference(snapshot, now) {
                snapshot = now
                return changed
            }
        }
        return nil
    }

    private func takeSnapshot() -> [String: (Int, Int)] {
        var result: [String: (Int, Int)] = [:]
        var paths = files
        for (pattern, base) in patterns {
            paths += SourceGlob.matches(pattern, base: base).map { SourceGlob.absolute($0, from: base) }
        }
        for path in paths where !isGenerated(path) {
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            result[path] = (Int(info.st_size), Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec))
        }
        return result
    }

    /// Whether a `generates` pattern covers the file (the build writes it).
    private func isGenerated(_ path: String) -> Bool {
        ignoredFiles.contains(path) || generated?.covers(path) == true
            || ignoring.contains { pattern, base in
                let folder = base.hasSuffix("/") ? base : base + "/"
                return path.hasPrefix(folder) && SourceGlob.covers(pattern, path: String(path.dropFirst(folder.count)))
            }
    }

    private func difference(_ old: [String: (Int, Int)], _ new: [String: (Int, Int)]) -> String? {
        for (path, value) in new where old[path].map({ $0 != value }) ?? true { return path }
        for path in old.keys where new[path] == nil { return path }
        return nil
    }

    /// The folders to watch: each pattern's folder before its first
    /// wildcard (with every folder below it for `**`), and each file's.
    private func folders() -> [String] {
        var folders: Set<String> = []
        for file in files {
            folders.insert(String(file.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")))
        }
        for (pattern, base) in patterns {
            var fixed: [Substring] = []
            for part in pattern.split(separator: "/") {
                if part.contains(where: { "*?[".contains($0) }) { break }
                fixed.append(part)
            }
            let isFile = fixed.count == pattern.split(separator: "/").count
            if isFile { fixed.removeLast() }
            let root = SourceGlob.absolute(fixed.isEmpty ? "." : fixed.joined(separator: "/"), from: base)
            folders.insert(root)
            // A folder named by a pattern stands for everything below it.
            for path in SourceGlob.folders(pattern, base: base) {
                folders.insert(path)
                addSubfolders(of: path, into: &folders, depth: 0)
            }
            if pattern.contains("**") {
                addSubfolders(of: root, into: &folders, depth: 0)
            } else if pattern.contains("/") {
                for match in SourceGlob.matches(pattern, base: base) {
                    let path = SourceGlob.absolute(match, from: base)
                    folders.insert(String(path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")))
                }
            }
        }
        return folders.filter { !$0.isEmpty }.sorted()
    }

    private func addSubfolders(of folder: String, into folders: inout Set<String>, depth: Int) {
        guard depth < 32, let directory = opendir(folder) else { return }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name != ".", name != "..", !name.hasPrefix(".") else { continue }
            let path = folder + "/" + name
            var info = stat()
            if stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
                folders.insert(path)
                addSubfolders(of: path, into: &folders, depth: depth + 1)
            }
        }
    }
}
