import Glibc
import PromiseEngine

/// The few file-system reads the executor needs: `lines("FILE")`,
/// `glob(...)`, `exists PATH`, the store of incremental steps.
extension FileSystem {
    package static func exists(_ path: String) -> Bool {
        look(path, .followed) != nil
    }

    package static func isDirectory(_ path: String) -> Bool {
        look(path, .followed).map { ($0.st_mode & S_IFMT) == S_IFDIR } ?? false
    }

    /// Reads a file a chunk at a time into a buffer sized for it (at most
    /// 1 MiB, never zeroed: a small file costs a page, not a megabyte);
    /// false when it cannot be opened or read, or is not a regular file
    /// (a FIFO among `sources` must not hold the run).
    package static func readChunks(_ path: String, _ body: (UnsafeRawBufferPointer) -> Void) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            DependencyJournal.shared.note(path, .followed, nil)
            return false
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return false }
        DependencyJournal.shared.note(path, .followed, info)
        guard isRegularFile(info) else { return false }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        let size = Int(info.st_size)
        let capacity = min(1 << 20, max(4096, size + 1))
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        defer { buffer.deallocate() }
        var total = 0
        while true {
            let count = Glibc.read(descriptor, buffer, capacity)
            if count < 0, errno == EINTR { continue }
            if count < 0 { return false }
            if count == 0 { return true }
            body(UnsafeRawBufferPointer(start: buffer, count: count))
            total += count
            // The size fstat gave is read: no call for the end of the file.
            if total == size && size > 0 { return true }
        }
    }

    /// A regular file's bytes as UTF-8 text (at most `inputLimit`), or the
    /// reason it cannot be read: a workflow input (`lines(...)`, `.env`
    /// files, the store's and the cache's entries).
    package static func readText(_ path: String) -> Result<String, FileError> {
        readBytes(path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// A regular file's bytes (at most `inputLimit`), or the reason it
    /// cannot be read: a workflow input (includes, `readText`).
    package static func readBytes(_ path: String) -> Result<[UInt8], FileError> {
        do {
            return .success(try FileSystem().read(path, limit: inputLimit))
        } catch let error as FileError {
            return .failure(error)
        } catch {
            return .failure(FileError(path, reason: "\(error)"))
        }
    }

    /// Names in a folder (not `.` and `..`), unsorted.
    package static func entriesOrNone(of folder: String) -> [String] {
        let path = folder.isEmpty ? "." : folder
        guard let directory = opendir(path) else {
            DependencyJournal.shared.note(path, .followed, nil)
            return []
        }
        defer { closedir(directory) }
        // A folder's times change when a name in it comes or goes: what a
        // listing depends on.
        var info = stat()
        DependencyJournal.shared.note(path, .followed, fstat(dirfd(directory), &info) == 0 ? info : nil)
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Paths matching `pattern` (`*`, `?`, `[...]` within a name; `**` for
    /// any number of folders), relative to `base` as the pattern is, sorted.
    /// Names starting with `.` match only a pattern that starts with `.`.
    /// `**` never descends through a link to a folder (as bash's globstar):
    /// the link is matched as itself, and a link cycle ends nothing.
    package static func glob(_ pattern: String, base: String) -> [String] {
        let absolutePattern = pattern.hasPrefix("/")
        // A pattern without wildcards names one path: one stat, not one a
        // folder on the way (a build's usual `sources "src/main.c"`).
        if let literal = literalPath(pattern) {
            return exists(absolutePattern ? literal : Paths.join(base, literal)) ? [literal] : []
        }
        let segments = pattern.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        var results: [String] = []
        func walk(_ relative: String, _ index: Int) {
            let folder = absolutePattern ? (relative.isEmpty ? "/" : relative) : Paths.join(base, relative.isEmpty ? "." : relative)
            guard index < segments.count else {
                if !relative.isEmpty { results.append(relative) }
                return
            }
            let segment = segments[index]
            let prefix = relative.isEmpty ? (absolutePattern ? "/" : "") : relative + "/"
            if segment == "**" {
                walk(relative, index + 1)
                for name in entriesOrNone(of: folder) where !name.hasPrefix(".") {
                    let path = prefix + name
                    let full = absolutePattern ? path : Paths.join(base, path)
                    if isFolderNotLink(full) { walkDeep(path, index) }
                }
                return
            }
            if !segment.contains(where: { "*?[".contains($0) }) {
                let path = prefix + segment
                if exists(absolutePattern ? path : Paths.join(base, path)) { walk(path, index + 1) }
                return
            }
            for name in entriesOrNone(of: folder) {
                if name.hasPrefix(".") && !segment.hasPrefix(".") { continue }
                if fnmatch(segment, name, 0) == 0 { walk(prefix + name, index + 1) }
            }
        }
        func walkDeep(_ relative: String, _ index: Int) {
            // `**` matched `relative`: try the rest here, and deeper.
            walk(relative, index + 1)
            let full = absolutePattern ? relative : Paths.join(base, relative)
            for name in entriesOrNone(of: full) where !name.hasPrefix(".") {
                let path = relative + "/" + name
                if isFolderNotLink(absolutePattern ? path : Paths.join(base, path)) { walkDeep(path, index) }
            }
        }
        walk("", 0)
        return Array(Set(results)).sorted()
    }

    /// A folder, and not a link to one.
    private static func isFolderNotLink(_ path: String) -> Bool {
        look(path, .itself).map { ($0.st_mode & S_IFMT) == S_IFDIR } ?? false
    }

    /// The path a pattern without wildcards names, as `glob` gives it; nil
    /// when it has wildcards or nothing to name.
    static func literalPath(_ pattern: String) -> String? {
        guard !pattern.utf8.contains(where: { $0 == UInt8(ascii: "*") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "[") }) else {
            return nil
        }
        if Paths.isNormal(pattern), pattern != "/" { return pattern }
        let segments = pattern.split(separator: "/", omittingEmptySubsequences: true)
        guard !segments.isEmpty else { return nil }
        return (pattern.hasPrefix("/") ? "/" : "") + segments.joined(separator: "/")
    }
}
