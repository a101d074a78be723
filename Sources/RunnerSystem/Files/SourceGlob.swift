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

    /// Whether `matches(pattern, ...)` could give `path` (relative to the
    /// same base, without `..`), decided from the text alone: the pattern
    /// matches the path, or a folder holding it. Wildcards skip names
    /// that start with `.`, as `matches` does; an absolute pattern covers
    /// no relative path. (What a shared cache's entry may restore.)
    package static func covers(_ pattern: String, path: String) -> Bool {
        guard !pattern.hasPrefix("/") else { return false }
        let wanted = pattern.split(separator: "/").filter { $0 != "." }
        let names = path.split(separator: "/").filter { $0 != "." }
        guard !wanted.contains("..") else { return false }
        func named(_ segment: Substring, _ name: Substring) -> Bool {
            guard segment.contains(where: { "*?[".contains($0) }) else { return segment == name }
            if name.hasPrefix(".") && !segment.hasPrefix(".") { return false }
            return fnmatch(String(segment), String(name), 0) == 0
        }
        func match(_ pi: Int, _ ni: Int) -> Bool {
            if pi == wanted.count {
                // A folder the pattern named stands for the files below it.
                return ni == names.count ? true : ni > 0 && !names[ni...].contains { $0.hasPrefix(".") }
            }
            if wanted[pi] == "**" {
                if match(pi + 1, ni) { return true }
                return ni < names.count && !names[ni].hasPrefix(".") && match(pi, ni + 1)
            }
            return ni < names.count && named(wanted[pi], names[ni]) && match(pi + 1, ni + 1)
        }
        return !names.isEmpty && match(0, 0)
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
