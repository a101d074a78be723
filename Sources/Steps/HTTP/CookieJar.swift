import PromiseEngine
import RunnerSystem
import WorkflowModel

/// The run's cookie store (RFC 6265 §5): what `Set-Cookie` headers set,
/// sent back on later requests to the same site, as a browser or Hurl
/// does. Domain and path matching, expiry (`Max-Age` over `Expires`),
/// `Secure`, host-only cookies. No public-suffix list: a `Domain` that is a
/// bare top-level name (`com`) is refused, nothing finer.
///
/// Lives on the event loop thread with the exchanges that use it, so the
/// parallel requests of a run share it without a lock.
struct CookieJar {
    struct Cookie {
        var name: String
        var value: String
        /// Lower-case, without a leading dot.
        var domain: String
        var hostOnly: Bool
        var path: String
        var secure: Bool
        /// nil: a session cookie (kept for the run).
        var expires: Int64?
        var created: Int
    }

    private(set) var cookies: [Cookie] = []
    private var nextCreation = 0

    /// Takes the `Set-Cookie` headers of a response to `url`.
    mutating func store(_ headers: HeaderList, from url: RequestURL, now: Int64) {
        for value in headers.values(named: "set-cookie") {
            store(value, from: url, now: now)
        }
    }

    mutating func store(_ line: String, from url: RequestURL, now: Int64) {
        let parts = line.split(separator: ";", omittingEmptySubsequences: false)
        guard let pair = parts.first, let equals = pair.firstIndex(of: "=") else { return }
        let name = Self.trimmed(pair[..<equals])
        let value = Self.trimmed(pair[pair.index(after: equals)...])
        // RFC 6265bis §5.6: a name or value with a control character is
        // refused whole (it could otherwise reach a request's headers).
        guard !name.isEmpty, !Self.hasControl(name), !Self.hasControl(value) else { return }
        var domain = ""
        var path: String?
        var secure = false
        var maxAge: Int64?
        var expires: Int64?
        for attribute in parts.dropFirst() {
            let key: String
            let argument: String
            if let equals = attribute.firstIndex(of: "=") {
                key = Self.trimmed(attribute[..<equals]).lowercased()
                argument = Self.trimmed(attribute[attribute.index(after: equals)...])
            } else {
                key = Self.trimmed(attribute).lowercased()
                argument = ""
            }
            switch key {
            case "domain":
                var text = Substring(argument.lowercased())
                while text.hasPrefix(".") { text = text.dropFirst() }
                domain = String(text)
            case "path":
                path = argument.hasPrefix("/") ? argument : nil
            case "secure":
                secure = true
            case "max-age":
                guard let seconds = Int64(argument) else { break }
                maxAge = seconds <= 0 ? Int64.min : now.addingReportingOverflow(seconds).partialValue
            case "expires":
                if let date = CookieDate.parse(argument) { expires = date }
            default:
                break
            }
        }
        var cookie = Cookie(
            name: name, value: value, domain: url.host, hostOnly: true,
            path: path ?? Self.defaultPath(url), secure: secure, expires: maxAge ?? expires,
            created: nextCreation)
        if !domain.isEmpty {
            guard Self.domainMatches(url.host, domain), domain.contains(".") || domain == url.host else { return }
            cookie.domain = domain
            cookie.hostOnly = false
        }
        if let index = cookies.firstIndex(where: { $0.name == name && $0.domain == cookie.domain && $0.path == cookie.path }) {
            cookie.created = cookies[index].created
            cookies.remove(at: index)
        } else {
            nextCreation += 1
        }
        if let expiry = cookie.expires, expiry <= now { return }
        cookies.append(cookie)
    }

    /// The `Cookie` header value for a request to `url`: matching cookies,
    /// longer paths first, then older first; nil when none.
    mutating func header(for url: RequestURL, now: Int64) -> String? {
        guard !cookies.isEmpty else { return nil }
        dropExpired(now: now)
        let path = String(url.path)
        let matching = cookies.filter { cookie in
            (cookie.hostOnly ? url.host == cookie.domain : Self.domainMatches(url.host, cookie.domain))
                && Self.pathMatches(path, cookie.path) && (!cookie.secure || url.isSecure)
        }
        guard !matching.isEmpty else { return nil }
        let ordered = matching.sorted {
            $0.path.utf8.count != $1.path.utf8.count
                ? $0.path.utf8.count > $1.path.utf8.count
                : $0.created < $1.created
        }
        return ordered.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// The cookies held for `url`'s host (any path), for `cookie.NAME`.
    mutating func values(for url: RequestURL, now: Int64) -> [HTTPCookieValue] {
        guard !cookies.isEmpty else { return [] }
        dropExpired(now: now)
        return cookies.filter { $0.hostOnly ? url.host == $0.domain : Self.domainMatches(url.host, $0.domain) }
            .sorted { $0.created < $1.created }
            .map { HTTPCookieValue(name: $0.name, value: $0.value) }
    }

    private mutating func dropExpired(now: Int64) {
        if cookies.contains(where: { ($0.expires ?? .max) <= now }) {
            cookies.removeAll { ($0.expires ?? .max) <= now }
        }
    }

    private static func hasControl(_ text: String) -> Bool {
        text.utf8.contains { $0 < 0x20 && $0 != 0x09 || $0 == 0x7F }
    }

    private static func trimmed(_ text: Substring) -> String {
        var text = text
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return String(text)
    }

    /// RFC 6265 §5.1.3: equal, or a suffix after a dot (not for addresses).
    static func domainMatches(_ host: String, _ domain: String) -> Bool {
        if host == domain { return true }
        guard host.hasSuffix("." + domain) else { return false }
        return !host.allSatisfy { $0.isNumber || $0 == "." } && !host.contains(":")
    }

    /// RFC 6265 §5.1.4.
    static func pathMatches(_ path: String, _ cookiePath: String) -> Bool {
        if path == cookiePath { return true }
        guard path.hasPrefix(cookiePath) else { return false }
        return cookiePath.hasSuffix("/") || path.dropFirst(cookiePath.count).hasPrefix("/")
    }

    /// RFC 6265 §5.1.4's default path: the request path up to its last `/`.
    static func defaultPath(_ url: RequestURL) -> String {
        let path = url.path
        guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }
}

/// RFC 6265 §5.1.1's cookie-date parser (`Wed, 21 Oct 2015 07:28:00 GMT`
/// and the variants servers write), to seconds since the epoch.
enum CookieDate {
    static func parse(_ text: String) -> Int64? {
        var time: (Int, Int, Int)?
        var day: Int?
        var month: Int?
        var year: Int?
        let tokens = text.split { !($0.isLetter || $0.isNumber || $0 == ":") }
        for token in tokens {
            if time == nil, token.contains(":") {
                let pieces = token.split(separator: ":")
                if pieces.count == 3, let h = Int(pieces[0]), let m = Int(pieces[1]), let s = Int(pieces[2].prefix(2)) {
                    time = (h, m, s)
                    continue
                }
            }
            if day == nil, token.count <= 2, let value = Int(token) {
                day = value
                continue
            }
            if month == nil, token.count >= 3, let index = months.firstIndex(of: token.prefix(3).lowercased()) {
                month = index + 1
                continue
            }
            if year == nil, token.count == 2 || token.count == 4, let value = Int(token) {
                year = value < 70 ? value + 2000 : value < 100 ? value + 1900 : value
            }
        }
        guard let (hour, minute, second) = time, let day, let month, let year, (1...31).contains(day),
            year >= 1601, hour < 24, minute < 60, second < 61
        else { return nil }
        return Int64(RFC3339.daysFromEpoch(year: year, month: month, day: day)) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
}
