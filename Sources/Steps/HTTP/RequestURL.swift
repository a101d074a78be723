import WorkflowModel

/// An `http://` or `https://` URL, split for sending.
///
/// The URL is sent as written after interpolation: `%XX` escapes already in
/// it stay as they are, and only bytes that cannot stand in a request line
/// (space, `"`, `<`, `>`, `{`, `}`, `|`, `\`, `^`, backtick, controls and
/// non-ASCII) are percent-encoded. The fragment is not sent; `.` and `..`
/// path segments are removed, as curl and browsers do (RFC 3986 §5.2.4).
/// See docs/steps.md, 'HTTP'.
///
/// An object, never changed once made: a request's URL passes through its
/// order, its hops and its exchange, and each hand-over is one reference
/// count instead of a copy of its nine strings.
final class RequestURL: Sendable, Hashable {
    /// `http` or `https`, lower-case.
    let scheme: String
    /// `user:password` before the host, if any (sent as basic auth).
    let userInfo: String?
    /// Lower-case; an IPv6 address without its brackets.
    let host: String
    let port: Int
    /// Whether the URL named the port.
    let portWritten: Bool
    /// Path and query, starting with `/`, encoded for the request line.
    let target: String
    /// `host` or `host:port` (the port only when it is not the scheme's
    /// default), IPv6 in brackets: the `Host` header. Made once: every
    /// request sends it and reports it.
    let authority: String
    /// Scheme, host and port: what a redirect must keep for credentials
    /// to go on, and what the connection pool keys on (hashed once).
    let origin: Origin
    /// The URL without user info or fragment, as sent: what reports say.
    /// Made once, as `authority` is.
    let text: String

    init(scheme: String, userInfo: String?, host: String, port: Int, portWritten: Bool, target: String) {
        self.scheme = scheme
        self.userInfo = userInfo
        self.host = host
        self.port = port
        self.portWritten = portWritten
        self.target = target
        let name = ASCIIByte.occurs(UInt8(ascii: ":"), in: host) ? "[\(host)]" : host
        authority = port == Self.defaultPort(scheme) ? name : name + ":" + String(port)
        origin = Origin(scheme: scheme, host: host, port: port)
        var text = scheme
        text.reserveCapacity(scheme.utf8.count + 3 + authority.utf8.count + target.utf8.count)
        text += "://"
        text += authority
        text += target
        self.text = text
    }

    /// Equal when written the same (the rest follows from these).
    static func == (a: RequestURL, b: RequestURL) -> Bool {
        a === b
            || (a.scheme == b.scheme && a.userInfo == b.userInfo && a.host == b.host && a.port == b.port
                && a.portWritten == b.portWritten && a.target == b.target)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(text)
        hasher.combine(userInfo)
        hasher.combine(portWritten)
    }

    var isSecure: Bool { scheme == "https" }

    /// The path part of the target (before `?`).
    var path: Substring {
        guard let mark = target.firstIndex(of: "?") else { return Substring(target) }
        return target[..<mark]
    }

    static func defaultPort(_ scheme: String) -> Int { scheme == "https" ? 443 : 80 }

    /// The URLs parsed last (`RecentURLs`).
    private static let recent = RecentURLs()

    /// Parses an absolute http(s) URL; nil when it is not one.
    static func parse(_ text: String) -> RequestURL? {
        recent.url(for: text, parse: parseAnew)
    }

    private static func parseAnew(_ text: String) -> RequestURL? {
        let bytes = Array(text.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0 else { return nil }
        // Compared without case as bytes; the scheme kept in lower case.
        let scheme: String
        switch colon {
        case 4 where String(decoding: bytes[..<colon], as: UTF8.self).equalsLowercase("http"): scheme = "http"
        case 5 where String(decoding: bytes[..<colon], as: UTF8.self).equalsLowercase("https"): scheme = "https"
        default: return nil
        }
        var index = colon + 1
        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "/"), bytes[index + 1] == UInt8(ascii: "/") else {
            return nil
        }
        index += 2
        return parseAfterScheme(scheme, bytes[index...])
    }

    /// The rest after `scheme://`: authority, path, query, fragment.
    private static func parseAfterScheme(_ scheme: String, _ rest: ArraySlice<UInt8>) -> RequestURL? {
        var authorityEnd = rest.startIndex
        while authorityEnd < rest.endIndex, !isAuthorityEnd(rest[authorityEnd]) { authorityEnd += 1 }
        var authority = rest[rest.startIndex..<authorityEnd]
        var userInfo: String?
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) {
            userInfo = String(decoding: authority[authority.startIndex..<at], as: UTF8.self)
            authority = authority[(at + 1)...]
        }
        var host: ArraySlice<UInt8>
        var portText: ArraySlice<UInt8>?
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            host = authority[(authority.startIndex + 1)..<close]
            let after = authority[(close + 1)...]
            if let first = after.first {
                guard first == UInt8(ascii: ":") else { return nil }
                portText = after.dropFirst()
            }
        } else if let colon = authority.firstIndex(of: UInt8(ascii: ":")) {
            host = authority[authority.startIndex..<colon]
            portText = authority[(colon + 1)...]
        } else {
            host = authority
        }
        guard !host.isEmpty, host.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        var port = defaultPort(scheme)
        var portWritten = false
        if let portText, !portText.isEmpty {
            guard portText.count <= 5, portText.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                let value = Int(String(decoding: portText, as: UTF8.self)), value > 0, value <= 65535
            else { return nil }
            port = value
            portWritten = true
        }
        let target = requestTarget(rest[authorityEnd...], basePath: nil)
        // Lower-cased only when it has an upper-case letter (it is ASCII).
        let hostText = String(decoding: host, as: UTF8.self)
        let hasUpper = host.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }
        return RequestURL(
            scheme: scheme, userInfo: userInfo, host: hasUpper ? hostText.lowercased() : hostText,
            port: port, portWritten: portWritten, target: target)
    }

    private static func isAuthorityEnd(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
    }

    /// The URL a `Location` header points to, resolved against this one as
    /// RFC 3986 §5.2 says (`../bar`, `/bar`, `?q`, `//host/bar`, or
    /// absolute). nil when the result is not an http(s) URL.
    func resolving(_ reference: String) -> RequestURL? {
        let bytes = Array(reference.utf8.drop { $0 == 0x20 || $0 == 0x09 })
        // A scheme: letters, digits, + - . up to a colon, before any / ? #.
        if let colon = bytes.firstIndex(of: UInt8(ascii: ":")),
            colon > 0, bytes[..<colon].allSatisfy({ Self.isSchemeByte($0) }), Self.isLetter(bytes[0])
        {
            return RequestURL.parse(reference)
        }
        if bytes.isEmpty || bytes.first == UInt8(ascii: "#") {
            // The same document (RFC 3986 §5.2.2: path and query kept).
            return self
        }
        if bytes.starts(with: [UInt8(ascii: "/"), UInt8(ascii: "/")]) {
            return Self.parseAfterScheme(scheme, bytes[2...])
        }
        return RequestURL(
            scheme: scheme, userInfo: userInfo, host: host, port: port, portWritten: portWritten,
            target: Self.requestTarget(bytes[...], basePath: path))
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        isLetter(byte) || (byte >= 0x30 && byte <= 0x39) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: ".")
    }

    /// Path and query from what follows the authority (or from a relative
    /// reference, merged with `basePath`): fragment dropped, dot segments
    /// removed, unsendable bytes encoded.
    private static func requestTarget(_ rest: ArraySlice<UInt8>, basePath: Substring?) -> String {
        // The common case, an absolute path with nothing to drop, remove
        // or encode: sent as written, in one copy.
        if basePath == nil, rest.first == UInt8(ascii: "/"),
            !rest.contains(where: { $0 == UInt8(ascii: "#") || needsEncoding($0) }),
            !hasDotSegment(rest[..<(rest.firstIndex(of: UInt8(ascii: "?")) ?? rest.endIndex)])
        {
            return String(decoding: rest, as: UTF8.self)
        }
        var part = rest
        if let hash = part.firstIndex(of: UInt8(ascii: "#")) { part = part[..<hash] }
        var pathPart = part
        var query: ArraySlice<UInt8>?
        if let mark = part.firstIndex(of: UInt8(ascii: "?")) {
            pathPart = part[..<mark]
            query = part[mark...]
        }
        var path: [UInt8]
        if let basePath {
            if pathPart.isEmpty {
                path = Array(basePath.utf8)
            } else if pathPart.first == UInt8(ascii: "/") {
                path = Array(pathPart)
            } else {
                // Merge (RFC 3986 §5.2.3): the base up to its last slash.
                let base = Array(basePath.utf8)
                let slash = base.lastIndex(of: UInt8(ascii: "/")) ?? -1
                path = Array(base[..<(slash + 1)]) + pathPart
                if path.first != UInt8(ascii: "/") { path.insert(UInt8(ascii: "/"), at: 0) }
            }
        } else {
            path = Array(pathPart)
        }
        if path.isEmpty { path = [UInt8(ascii: "/")] }
        var target = removingDotSegments(path)
        if let query { target += query }
        return encodedForRequestLine(target)
    }

    /// RFC 3986 §5.2.4, on a path that starts with `/`.
    static func removingDotSegments(_ path: [UInt8]) -> [UInt8] {
        guard hasDotSegment(path[...]) else { return path }
        var output: [ArraySlice<UInt8>] = []
        let segments = path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropFirst()
        var trailingSlash = false
        for (offset, segment) in segments.enumerated() {
            let last = offset == segments.count - 1
            if segment.elementsEqual([UInt8(ascii: ".")]) {
                trailingSlash = last
            } else if segment.elementsEqual([UInt8(ascii: "."), UInt8(ascii: ".")]) {
                if !output.isEmpty { output.removeLast() }
                trailingSlash = last
            } else {
                output.append(segment)
                trailingSlash = false
            }
        }
        var result: [UInt8] = []
        for segment in output {
            result.append(UInt8(ascii: "/"))
            result += segment
        }
        if trailingSlash || result.isEmpty { result.append(UInt8(ascii: "/")) }
        return result
    }

    /// Whether a segment of the path is `.` or `..`.
    private static func hasDotSegment(_ path: ArraySlice<UInt8>) -> Bool {
        var index = path.startIndex
        while index < path.endIndex {
            if path[index] == UInt8(ascii: "."), index == path.startIndex || path[index - 1] == UInt8(ascii: "/") {
                var end = index + 1
                if end < path.endIndex, path[end] == UInt8(ascii: ".") { end += 1 }
                if end == path.endIndex || path[end] == UInt8(ascii: "/") { return true }
            }
            index += 1
        }
        return false
    }

    /// Percent-encodes the bytes that cannot stand in a request line and
    /// keeps everything else, `%` included.
    static func encodedForRequestLine(_ bytes: [UInt8]) -> String {
        guard bytes.contains(where: needsEncoding) else { return String(decoding: bytes, as: UTF8.self) }
        let hex = Array("0123456789ABCDEF".utf8)
        var encoded: [UInt8] = []
        encoded.reserveCapacity(bytes.count + 16)
        for byte in bytes {
            if needsEncoding(byte) {
                encoded += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            } else {
                encoded.append(byte)
            }
        }
        return String(decoding: encoded, as: UTF8.self)
    }

    private static func needsEncoding(_ byte: UInt8) -> Bool {
        switch byte {
        case 0...0x20, 0x7F...0xFF: return true
        case UInt8(ascii: "\""), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "{"), UInt8(ascii: "}"),
            UInt8(ascii: "|"), UInt8(ascii: "\\"), UInt8(ascii: "^"), UInt8(ascii: "`"):
            return true
        default: return false
        }
    }
}

/// Scheme, host and port (RFC 6454).
struct Origin: Sendable, Hashable {
    let scheme: String
    let host: String
    let port: Int
    /// How connections to it are made when not by looking the host up
    /// (`unix:PATH`, `address:ADDRESS`); empty for the usual
    /// way. Part of the connection pool's key only.
    let route: String
    /// Hashed once: the connection pool looks an origin up at every request.
    private let hash: Int

    init(scheme: String, host: String, port: Int, route: String = "") {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.route = route
        var hasher = Hasher()
        hasher.combine(scheme)
        hasher.combine(host)
        hasher.combine(port)
        hasher.combine(route)
        hash = hasher.finalize()
    }

    /// The same origin reached by `route`.
    func routed(_ route: String) -> Origin {
        route.isEmpty ? self : Origin(scheme: scheme, host: host, port: port, route: route)
    }

    static func == (a: Origin, b: Origin) -> Bool {
        a.hash == b.hash && a.port == b.port && a.host == b.host && a.scheme == b.scheme && a.route == b.route
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(hash)
    }
}
