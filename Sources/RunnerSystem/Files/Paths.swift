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
        // The usual case, already in shape: no splitting and joining.
        if isNormal(path) {
            if path.utf8.first == UInt8(ascii: "/") { return path }
            if isNormal(base), base.utf8.first == UInt8(ascii: "/") { return base == "/" ? "/" + path : base + "/" + path }
        }
        if path.isEmpty { return normalizedKeepingDots(base, trailing: false) }
        let joined = path.hasPrefix("/") || base.isEmpty ? path : base + "/" + path
        return normalizedKeepingDots(joined, trailing: joined.count > 1 && joined.hasSuffix("/"))
    }

    /// How a step sees a path: the same rule, against its folder.
    package static func resolve(_ path: String, against folder: String) -> String {
        absolute(path, from: folder)
    }

    /// Whether `absolute` would give the path back as it is: not empty, no
    /// empty or `.` segment, no trailing `/` (but `/` itself).
    package static func isNormal(_ path: String) -> Bool {
        var count = 0
        var segmentLength = 0
        var segmentIsDot = false
        for byte in path.utf8 {
            if byte == UInt8(ascii: "/") {
                if count > 0 && segmentLength == 0 { return false }
                if segmentLength == 1 && segmentIsDot { return false }
                segmentLength = 0
            } else {
                segmentIsDot = segmentLength == 0 && byte == UInt8(ascii: ".")
                segmentLength += 1
            }
            count += 1
        }
        if count == 0 { return false }
        if segmentLength == 0 { return count == 1 }
        return !(segmentLength == 1 && segmentIsDot)
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
