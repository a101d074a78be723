/// Path arithmetic without Foundation. `resolve` is how steps see a path
/// (relative to the step's folder, kept as written); `absolute` is how the
/// executor names files (`.` segments and repeated slashes dropped).
package enum Paths {
    /// `path` made absolute against `folder` (no other normalisation: `..`
    /// stays, as the shell would keep it).
    package static func resolve(_ path: String, against folder: String) -> String {
        if path.hasPrefix("/") { return path }
        if path.isEmpty || path == "." { return folder }
        var relative = Substring(path)
        while relative.hasPrefix("./") { relative = relative.dropFirst(2) }
        if folder.hasSuffix("/") { return folder + relative }
        return folder + "/" + relative
    }

    /// The folder part of a path (`/a/b` → `/a`; `/a` → `/`).
    package static func parent(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        if slash == trimmed.startIndex { return "/" }
        return String(trimmed[..<slash])
    }

    /// The last component of a path (`/a/b/` → `b`).
    package static func lastComponent(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return String(trimmed) }
        return String(trimmed[trimmed.index(after: slash)...])
    }

    /// An absolute path with `.`, `..` and repeated slashes resolved by
    /// their text (links are not followed).
    package static func normalized(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == ".." {
                if !parts.isEmpty { parts.removeLast() }
                continue
            }
            parts.append(part)
        }
        return "/" + parts.joined(separator: "/")
    }

    /// `path` made absolute against `base` (unless it already is), with
    /// `.` segments removed.
    package static func absolute(_ path: String, from base: String) -> String {
        let joined = path.hasPrefix("/") ? path : (base.hasSuffix("/") ? base + path : base + "/" + path)
        var parts: [Substring] = []
        for part in joined.split(separator: "/", omittingEmptySubsequences: true) where part != "." {
            parts.append(part)
        }
        return "/" + parts.joined(separator: "/")
    }

    package static func join(_ base: String, _ name: String) -> String {
        base.isEmpty || base == "." ? name : (base.hasSuffix("/") ? base + name : base + "/" + name)
    }
}
