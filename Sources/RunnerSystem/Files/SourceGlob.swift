#if canImport(Glibc)
import Glibc
#endif

/// Files matching a glob (`*`, `?`, `**`), relative to `base`: what
/// `sources` matches. A match that is a folder stands for every file below
/// it (as `folder/**`), so `sources "src"` means all of `src`.
package enum SourceGlob {
    package static func matches(_ pattern: String, base: String) -> [String] {
        if let literal = FileSystem.literalPath(pattern) {
            // One stat says whether it is there and whether it is a folder.
            var info = stat()
            guard stat(Paths.absolute(literal, from: base), &info) == 0 else { return [] }
            if (info.st_mode & S_IFMT) != S_IFDIR { return [literal] }
        }
        var files: [String] = []
        for match in FileSystem.glob(pattern, base: base) {
            let full = Paths.absolute(match, from: base)
            if FileSystem.isDirectory(full) {
                files += FileSystem.glob("**/*", base: full).filter { !FileSystem.isDirectory(Paths.absolute($0, from: full)) }
                    .map { match + "/" + $0 }
            } else {
                files.append(match)
            }
        }
        return files
    }

    /// The matches of `pattern` that are folders, absolute.
    package static func folders(_ pattern: String, base: String) -> [String] {
        FileSystem.glob(pattern, base: base).map { Paths.absolute($0, from: base) }.filter(FileSystem.isDirectory)
    }

    /// `path` made absolute against `base`.
    package static func absolute(_ path: String, from base: String) -> String {
        Paths.absolute(path, from: base)
    }
}
