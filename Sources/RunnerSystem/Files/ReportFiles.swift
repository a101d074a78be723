import Glibc

/// Writing a whole file atomically, for the executable's reports: the
/// text goes to a temporary file in the same folder, is flushed to disk and
/// renamed over the target, so a reader sees the old content or the new,
/// never a part. Missing folders are made.
package enum AtomicFile {
    /// Writes `text` to `path` (relative to `folder`). Throws an error whose
    /// description names the path and the system's reason.
    package static func write(_ text: String, to path: String, relativeTo folder: String) throws {
        let target = Paths.resolve(path, against: folder)
        var bytes = Array(text.utf8)
        try bytes.withUnsafeMutableBytes { try FileSystem().writeAtomically(target, contents: UnsafeRawBufferPointer($0)) }
    }
}

/// Appends to a file others write too (`$GITHUB_STEP_SUMMARY`): one
/// `O_APPEND` write per chunk, so text from other writers is never
/// overwritten.
package enum AppendFile {
    /// Appends `text` to `path` (made if missing). Throws an error whose
    /// description names the path and the system's reason.
    package static func append(_ text: String, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw FileError(path) }
        defer { close(descriptor) }
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw FileError(path)
            }
            offset += written
        }
    }
}
