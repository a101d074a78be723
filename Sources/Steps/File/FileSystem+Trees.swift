import Glibc
import RunnerSystem

/// Copying, moving and deleting files and folder trees. Symbolic links are
/// copied and deleted as links, never followed.
extension FileSystem {
    /// Where `cp`/`mv` put `source` given `destination`: into it when it is
    /// an existing folder, else at it.
    static func target(for source: String, at destination: String) -> String {
        guard directoryExists(destination) else { return destination }
        let name = Paths.lastComponent(of: source)
        return destination.hasSuffix("/") ? destination + name : destination + "/" + name
    }

    /// Copies a file, a link or a folder tree to `destination` (made, with
    /// its parents; an existing folder there is merged into). A file is
    /// copied atomically (temporary file + rename), with its mode.
    func copy(_ source: String, to destination: String) throws {
        guard let info = try Self.linkInfo(source) else { throw FileError(source, code: ENOENT) }
        if Self.isDirectory(info), Self.isInside(destination, source) {
            throw FileError(destination, reason: "cannot copy the folder \(source) into itself")
        }
        try makeDirectories(Paths.parent(of: destination))
        try copyItem(source, info, to: destination)
    }

    private func copyItem(_ source: String, _ info: stat, to destination: String) throws {
        try checkCancelled()
        if Self.isDirectory(info) {
            try makeDirectories(destination, mode: info.st_mode & 0o7777)
            for name in try Self.entries(of: source) {
                let child = source + "/" + name
                guard let childInfo = try Self.linkInfo(child) else { continue }
                try copyItem(child, childInfo, to: destination + "/" + name)
            }
        } else if Self.isSymbolicLink(info) {
            let target = try Self.linkTarget(source)
            try Self.checkReplaceable(destination)
            if let existing = try Self.linkInfo(destination), !Self.isDirectory(existing) { unlink(destination) }
            guard symlink(target, destination) == 0 else { throw FileError(destination) }
        } else if Self.isRegularFile(info) {
            try copyFile(source, mode: info.st_mode & 0o7777, to: destination)
        } else {
            throw FileError(source, reason: "is \(Self.kindName(info)); file copy copies files, links and folders")
        }
    }

    /// Where a write to `path` lands: the path itself, or, when it is a
    /// symbolic link, the file the link leads to (made if missing), as a
    /// shell's `>` writes. The link stays a link.
    static func followingLinks(_ path: String) throws -> String {
        var current = path
        for _ in 0..<40 {
            guard let info = try linkInfo(current), isSymbolicLink(info) else { return current }
            let target = try linkTarget(current)
            current = Paths.absolute(target, from: Paths.parent(of: current))
        }
        throw FileError(path, reason: "too many levels of symbolic links")
    }

    private func copyFile(_ source: String, mode: mode_t, to destination: String) throws {
        // Not blocking in open: a FIFO put there since the look is refused below.
        let input = retryingOnInterrupt { open(source, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW) }
        guard input >= 0 else { throw FileError(source) }
        defer { close(input) }
        var opened = stat()
        guard fstat(input, &opened) == 0 else { throw FileError(source) }
        guard Self.isRegularFile(opened) else {
            throw FileError(source, reason: "is \(Self.kindName(opened)); file copy copies files, links and folders")
        }
        _ = fcntl(input, F_SETFL, fcntl(input, F_GETFL) & ~O_NONBLOCK)
        try Self.checkReplaceable(destination)
        let (temporary, output) = try Self.createTemporaryFile(near: destination)
        do {
            _ = fchmod(output, mode)
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunkSize, alignment: 16)
            defer { buffer.deallocate() }
            while true {
                try checkCancelled()
                let count = Glibc.read(input, buffer.baseAddress, buffer.count)
                if count < 0 {
                    if errno == EINTR { continue }
                    throw FileError(source)
                }
                if count == 0 { break }
                try writeAll(output, UnsafeRawBufferPointer(rebasing: buffer[..<count]), path: destination)
            }
        } catch {
            close(output)
            unlink(temporary)
            throw error
        }
        // `commit` closes the descriptor whatever happens.
        do {
            try Self.commit(output, temporary: temporary, to: destination)
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// Renames; across file systems, copies then deletes the source.
    func move(_ source: String, to destination: String) throws {
        guard try Self.linkInfo(source) != nil else { throw FileError(source, code: ENOENT) }
        try Self.checkReplaceable(destination)
        try makeDirectories(Paths.parent(of: destination))
        if rename(source, destination) == 0 { return }
        let code = errno
        guard code == EXDEV else { throw FileError(destination, reason: "cannot move \(source) here: \(systemReason(code))") }
        try copy(source, to: destination)
        try delete(source)
    }

    /// Deletes a file, a link or a folder tree; a missing path is fine.
    func delete(_ path: String) throws {
        guard let info = try Self.linkInfo(path) else { return }
        try checkCancelled()
        if Self.isDirectory(info) {
            for name in try Self.entries(of: path) { try delete(path + "/" + name) }
            guard rmdir(path) == 0 || errno == ENOENT else { throw FileError(path) }
        } else {
            guard unlink(path) == 0 || errno == ENOENT else { throw FileError(path) }
        }
    }

    // MARK: - Helpers

    /// The names in a folder, without `.` and `..`.
    static func entries(of folder: String) throws -> [String] {
        guard let stream = opendir(folder) else { throw FileError(folder) }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    static func linkTarget(_ path: String) throws -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count >= 0 else { throw FileError(path) }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `path` is `folder` or inside it (by their text, `..` resolved).
    static func isInside(_ path: String, _ folder: String) -> Bool {
        let base = Paths.normalized(folder)
        let inner = Paths.normalized(path)
        return inner == base || inner.hasPrefix(base == "/" ? "/" : base + "/")
    }
}
