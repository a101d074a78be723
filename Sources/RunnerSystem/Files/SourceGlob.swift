import Glibc

/// Files matching a glob (`*`, `?`, `**`), relative to `base`: the one
/// matcher of `sources`, `generates`, the shared cache and what a restore
/// may write. A match that is a folder stands for every file
/// below it, dotfiles included, so `sources "src"` means all of `src`.
/// See docs/language.md, 'Incremental steps'.
package enum SourceGlob {
    package static func matches(_ pattern: String, base: String) -> [String] {
        if let literal = FileSystem.literalPath(pattern) {
            // One lstat says whether it is there and whether it is a folder;
            // a link (to a folder, or dangling) is matched as the link.
            guard let info = FileSystem.look(Paths.absolute(literal, from: base), .itself) else { return [] }
            if (info.st_mode & S_IFMT) != S_IFDIR { return [literal] }
        }
        var files: [String] = []
        for match in FileSystem.glob(pattern, base: base) {
            let full = Paths.absolute(match, from: base)
            if let info = FileSystem.look(full, .itself), (info.st_mode & S_IFMT) == S_IFDIR {
                files += below(full).map { match + "/" + $0 }
            } else {
                files.append(match)
            }
        }
        return files
    }

    /// Every file below a folder, at any depth, names that start with `.`
    /// included (a folder stands for all of it); a link is a
    /// file here, never followed; `.promise-run` (the runner's own store,
    /// which changes on every run) is left out. Relative, unsorted.
    static func below(_ folder: String) -> [String] {
        var files: [String] = []
        func walk(_ relative: String) {
            let path = relative.isEmpty ? folder : folder + "/" + relative
            for name in FileSystem.entriesOrNone(of: path) where name != ".promise-run" {
                let child = relative.isEmpty ? name : relative + "/" + name
                guard let info = FileSystem.look(folder + "/" + child, .itself) else { continue }
                if (info.st_mode & S_IFMT) == S_IFDIR { walk(child) } else { files.append(child) }
            }
        }
        walk("")
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
                // A folder the pattern named stands for every file below it,
                // names that start with `.` included.
                return ni == names.count || ni > 0
            }
            if wanted[pi] == "**", pi == wanted.count - 1, ni > 0 {
                // `out/**`: every file below `out`.
                return ni < names.count
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
