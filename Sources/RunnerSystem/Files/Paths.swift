/// Path arithmetic without Foundation, one rule for every path a workflow
/// names (a step's file, its folder, a `sources` pattern's base, a store
/// entry): `absolute`.
package enum Paths {
    /// `path` against `base`: as written when it is absolute, else joined to
    /// `base`; `.` segments and repeated slashes dropped; `..` kept (a link
    /// may lead anywhere: the shell keeps it too); a trailing `/` kept (it
    /// says "a folder": `file copy "a" "dir/"`). A relative `base` gives a
    /// relative path; an empty `path` is `base`.
    package static func absolute(_ path: String, from base: String) -> String {
        if path.isEmpty { return normalizedKeepingDots(base, trailing: false) }
        let joined = path.hasPrefix("/") || base.isEmpty ? path : base + "/" + path
        return normalizedKeepingDots(joined, trailing: joined.count > 1 && joined.hasSuffix("/"))
    }

    /// How a step sees a path: the same rule, against its folder.
    package static func resolve(_ path: String, against folder: String) -> String {
        absolute(path, from: folder)
    }

    private static func normalizedKeepingDots(_ path: String, trailing: Bool) -> String {
        let rooted = path.hasPrefix("/")
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." }
        var result = (rooted ? "/" : "") + parts.joined(separator: "/")
        if result.isEmpty { result = "." }
        if trailing, !result.hasSuffix("/") { result += "/" }
        return result
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

    package static func join(_ base: String, _ name: String) -> String {
        base.isEmpty || base == "." ? name : (base.hasSuffix("/") ? base + name : base + "/" + name)
    }
}
