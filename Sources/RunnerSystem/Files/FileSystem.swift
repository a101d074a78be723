package import Glibc

/// A file operation that failed: the path and the system's reason.
package struct FileError: Error, CustomStringConvertible {
    package var path: String
    package var reason: String

    package init(_ path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// From errno.
    package init(_ path: String, code: Int32 = errno) {
        self.init(path, reason: systemReason(code))
    }

    package var description: String { "\(path): \(reason)" }
}

/// The file operations of `file` steps, on POSIX calls. Paths are
/// absolute. Long operations look at `cancelled` between chunks and
/// throw `CancellationError` when it is set.
package struct FileSystem: Sendable {
    package let cancelled: CancelFlag?
    package static let chunkSize = 1 << 20

    package init(cancelled: CancelFlag? = nil) {
        self.cancelled = cancelled
    }

    package func checkCancelled() throws {
        if cancelled?.isSet == true { throw CancellationError() }
    }

    // MARK: - Inspecting

    /// lstat, or nil when nothing is there (a dangling link is something).
    package static func linkInfo(_ path: String) throws -> stat? {
        var info = stat()
        if lstat(path, &info) == 0 {
            DependencyJournal.shared.note(path, .itself, info)
            return info
        }
        if errno == ENOENT {
            DependencyJournal.shared.note(path, .itself, nil)
            return nil
        }
        throw FileError(path)
    }

    package static func isDirectory(_ info: stat) -> Bool { (info.st_mode & S_IFMT) == S_IFDIR }
    package static func isRegularFile(_ info: stat) -> Bool { (info.st_mode & S_IFMT) == S_IFREG }

    /// What is there, for messages: `a folder`, `a FIFO`, `a character device`...
    package static func kindName(_ info: stat) -> String {
        switch info.st_mode & S_IFMT {
        case S_IFREG: return "a file"
        case S_IFDIR: return "a folder"
        case S_IFLNK: return "a symbolic link"
        case S_IFIFO: return "a FIFO"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        default: return "not a regular file"
        }
    }
    package static func isSymbolicLink(_ info: stat) -> Bool { (info.st_mode & S_IFMT) == S_IFLNK }

    /// A symbolic link's target text, as written (never followed); it must
    /// be UTF-8 (it is kept as text).
    package static func linkTarget(_ path: String) throws -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count)
        guard count >= 0 else { throw FileError(path) }
        guard count < buffer.count, let text = String(validating: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) else {
            throw FileError(path, reason: "a symbolic link whose target is not UTF-8 text (or longer than PATH_MAX)")
        }
        return text
    }

    /// Whether anything (following links) is at `path`.
    package static func pathExists(_ path: String) -> Bool {
        look(path, .followed) != nil
    }

    /// Whether a folder (following links) is at `path`.
    package static func directoryExists(_ path: String) -> Bool {
        look(path, .followed).map(isDirectory) ?? false
    }

    /// `stat` (`.followed`) or `lstat` (`.itself`) of `path`, nil when
    /// nothing is there (or it cannot be looked at), noted in the
    /// dependency journal: how the run's file-system questions are asked.
    package static func look(_ path: String, _ look: DependencyJournal.Look) -> stat? {
        var info = stat()
        let found = (look == .itself ? lstat(path, &info) : stat(path, &info)) == 0
        DependencyJournal.shared.note(path, look, found ? info : nil)
        return found ? info : nil
    }

    // MARK: - Folders

    /// `mkdir -p`: the folder and its missing parents.
    package func makeDirectories(_ path: String, mode: mode_t = 0o777) throws {
        // A write's own look, not an input of the run (unjournaled).
        var info = stat()
        if stat(path, &info) == 0, Self.isDirectory(info) { return }
        let parent = Paths.parent(of: path)
        if parent != path { try makeDirectories(parent) }
        if mkdir(path, mode) != 0 {
            let code = errno
            if code == EEXIST, Self.directoryExists(path) { return }
            if code == EEXIST { throw FileError(path, reason: "exists and is not a folder") }
            throw FileError(path, code: code)
        }
    }

    // MARK: - Writing

    /// Replaces the file's content all at once: a temporary file in the same
    /// folder is written, flushed to disk and renamed over the target, so a
    /// reader (or a crash) sees the old content or the new, never a part.
    /// Missing parent folders are made; an existing file's mode is kept.
    /// `durable: false` skips the flushes (the incremental store: an entry
    /// lost in a crash only means running the step again): a reader still
    /// never sees a part.
    /// Only a regular file or a link is replaced: a device, a FIFO, a
    /// socket or a folder at `path` is refused (as root, a rename over
    /// `/dev/null` would replace the system's).
    package func writeAtomically(_ path: String, contents: UnsafeRawBufferPointer, durable: Bool = true) throws {
        try Self.checkReplaceable(path)
        let folder = Paths.parent(of: path)
        try makeDirectories(folder)
        let (temporary, fd) = try Self.createTemporaryFile(near: path)
        do {
            var existing = stat()
            if stat(path, &existing) == 0 { _ = fchmod(fd, existing.st_mode & 0o7777) }
            try writeAll(fd, contents, path: temporary)
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        // `commit` closes the descriptor whatever happens.
        do {
            try Self.commit(fd, temporary: temporary, to: path, durable: durable)
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// Throws unless what is at `path` may be replaced by a rename: nothing,
    /// a regular file or a link.
    package static func checkReplaceable(_ path: String) throws {
        if let info = try linkInfo(path), !isRegularFile(info), !isSymbolicLink(info) {
            throw FileError(path, reason: "is \(kindName(info)); only a regular file is replaced")
        }
    }

    /// Adds to the end of the file (made if missing, with its folders),
    /// through a link to its target. A character device (`/dev/stderr`)
    /// is written as it is; a FIFO only while it has a reader, waiting for
    /// room without blocking, so that cancelling stops it; a folder, a
    /// block device or a socket is refused.
    package func append(_ path: String, contents: UnsafeRawBufferPointer) throws {
        try makeDirectories(Paths.parent(of: path))
        let fd = retryingOnInterrupt { open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0o666) }
        guard fd >= 0 else {
            if errno == ENXIO { throw FileError(path, reason: "is a FIFO that nothing reads") }
            throw FileError(path)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw FileError(path) }
        switch info.st_mode & S_IFMT {
        case S_IFREG, S_IFCHR:
            // Writes to these do not wait for a reader.
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
            try writeAll(fd, contents, path: path)
        case S_IFIFO:
            try writeAllWaiting(fd, contents, path: path)
        default:
            throw FileError(path, reason: "is \(Self.kindName(info)); file append writes to files, character devices and FIFOs")
        }
    }

    /// Writes to a non-blocking descriptor, waiting for room a tenth of a
    /// second at a time and looking at `cancelled` between waits.
    private func writeAllWaiting(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws {
        var offset = 0
        while offset < bytes.count {
            try checkCancelled()
            let written = write(fd, bytes.baseAddress! + offset, min(bytes.count - offset, Self.chunkSize))
            if written >= 0 {
                offset += written
                continue
            }
            switch errno {
            case EINTR: continue
            case EAGAIN:
                var waiting = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&waiting, 1, 100)
            case EPIPE: throw FileError(path, reason: "its reader went away")
            default: throw FileError(path)
            }
        }
    }

    /// A new, empty file next to `path` named `.NAME.XXXXXX.tmp`, open for writing.
    package static func createTemporaryFile(near path: String) throws -> (path: String, fd: Int32) {
        let folder = Paths.parent(of: path)
        let name = Paths.lastComponent(of: path)
        for _ in 0..<16 {
            let suffix = String(UInt32.random(in: 0...UInt32.max), radix: 36)
            let temporary = (folder == "/" ? "" : folder) + "/.\(name).\(suffix).tmp"
            let fd = retryingOnInterrupt { open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666) }
            if fd >= 0 { return (temporary, fd) }
            if errno != EEXIST { throw FileError(folder) }
        }
        throw FileError(folder, reason: "cannot make a temporary file")
    }

    /// fsync, close and rename the temporary file over `path`, then fsync the
    /// folder so the rename itself is on disk. Closes `fd` in any case.
    package static func commit(_ fd: Int32, temporary: String, to path: String, durable: Bool = true) throws {
        guard !durable || fsync(fd) == 0 else {
            let code = errno
            close(fd)
            throw FileError(path, code: code)
        }
        close(fd)
        guard rename(temporary, path) == 0 else { throw FileError(path) }
        guard durable else { return }
        let folder = open(Paths.parent(of: path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            _ = fsync(folder)
            close(folder)
        }
    }

    package func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws {
        var offset = 0
        while offset < bytes.count {
            try checkCancelled()
            let count = min(bytes.count - offset, Self.chunkSize)
            let written = write(fd, bytes.baseAddress! + offset, count)
            if written < 0 {
                if errno == EINTR { continue }
                throw FileError(path)
            }
            offset += written
        }
    }

    // MARK: - Reading

    /// The most a workflow input is read into memory: the workflow file,
    /// includes, `lines(...)`, `.env` files, `--var-file`, the entries of the
    /// incremental store and the shared cache (as `file read`'s limit).
    package static let inputLimit = 64 << 20

    /// The whole file, when it is at most `limit` bytes: the one reader of
    /// whole files (workflow files, includes, `lines(...)`, `.env` files,
    /// `file read`, multipart parts, the incremental store).
    ///
    /// Anything but a regular file is refused with its kind ("a FIFO, not
    /// a regular file"): the path is looked at before it is opened (a
    /// device is never opened), and opened without waiting (a FIFO's open
    /// would wait for a writer), then looked at again.
    package func read(_ path: String, limit: Int = .max) throws -> [UInt8] {
        var before = stat()
        guard stat(path, &before) == 0 else {
            let code = errno
            DependencyJournal.shared.note(path, .followed, nil)
            throw FileError(path, code: code)
        }
        try Self.requireRegular(before, path)
        let fd = retryingOnInterrupt { open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
        guard fd >= 0 else { throw FileError(path) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw FileError(path) }
        DependencyJournal.shared.note(path, .followed, info)
        // Swapped for something else between the stat and the open.
        try Self.requireRegular(info, path)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        if Int(info.st_size) > limit {
            throw FileError(path, reason: "\(info.st_size) bytes, more than the \(Self.sizeText(limit)) limit for reading into memory")
        }
        return try readAll(fd, path: path, limit: limit, expected: Int(info.st_size))
    }

    /// Throws unless `info` is a regular file's, saying what it is instead.
    private static func requireRegular(_ info: stat, _ path: String) throws {
        if isRegularFile(info) { return }
        if isDirectory(info) { throw FileError(path, code: EISDIR) }
        throw FileError(path, reason: "\(kindName(info)), not a regular file; only regular files are read here")
    }

    /// `64 MiB` for a whole number of MiB, else the bytes.
    static func sizeText(_ bytes: Int) -> String {
        bytes >= 1 << 20 && bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : "\(bytes)-byte"
    }

    /// Everything standard input holds, to its end (`-` for a workflow).
    package func readStandardInput(limit: Int = .max) throws -> [UInt8] {
        try readAll(0, path: "<stdin>", limit: limit, expected: 0)
    }

    private func readAll(_ fd: Int32, path: String, limit: Int, expected: Int) throws -> [UInt8] {
        // Read into uninitialized room sized from fstat (grown when the file
        // grew): no zeroed buffer, no copy per read.
        var capacity = max(4096, min(expected, limit) + 1)
        var buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        defer { buffer.deallocate() }
        var count = 0
        while true {
            try checkCancelled()
            if count == capacity {
                let larger = UnsafeMutableRawPointer.allocate(byteCount: capacity * 2, alignment: 16)
                larger.copyMemory(from: buffer, byteCount: count)
                buffer.deallocate()
                buffer = larger
                capacity *= 2
            }
            let read = Glibc.read(fd, buffer + count, capacity - count)
            if read < 0 {
                if errno == EINTR { continue }
                throw FileError(path)
            }
            if read == 0 { return Array(UnsafeRawBufferPointer(start: buffer, count: count)) }
            count += read
            // The size fstat gave is there: no read for the end of the file.
            if count == expected && expected > 0 { return Array(UnsafeRawBufferPointer(start: buffer, count: count)) }
            if count > limit {
                throw FileError(path, reason: "more than the \(Self.sizeText(limit)) limit for reading into memory")
            }
        }
    }
}
