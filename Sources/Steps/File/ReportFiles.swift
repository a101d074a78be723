/// Writing a whole file atomically, for the executable's reports: the
/// text goes to a temporary file in the same folder, is flushed to disk and
/// renamed over the target, so a reader sees the old content or the new,
/// never a part. Missing folders are made.
public enum AtomicFile {
    /// Writes `text` to `path` (relative to `folder`). Throws an error whose
    /// description names the path and the system's reason.
    public static func write(_ text: String, to path: String, relativeTo folder: String) throws {
        let target = Paths.resolve(path, against: folder)
        var bytes = Array(text.utf8)
        try bytes.withUnsafeMutableBytes { try FileSystem().writeAtomically(target, contents: UnsafeRawBufferPointer($0)) }
    }
}
