import PromiseEngine

/// The cookies a response's `Set-Cookie` headers set, as written (RFC 6265
/// §5.2): what `expect cookie "NAME" [attribute "ATTR"]` reads.
/// The run's store (`CookieJar`) decides what is kept and sent; this only
/// reads the lines.
/// See docs/steps.md, 'For Hurl users'.
struct SetCookieLines {
    var name: String
    var value: String
    /// The attributes in order, names as written: `Max-Age` → `3600`,
    /// `Secure` → "".
    var attributes: [(name: String, value: String)]
    /// The header's value.
    var line: String

    /// An attribute's value, its name compared without case; `Value` is
    /// the cookie's value. The last one of that name wins (RFC 6265 §5.3).
    func attribute(_ wanted: String) -> String? {
        if wanted.lowercased() == "value" { return value }
        return attributes.last { $0.name.lowercased() == wanted.lowercased() }?.value
    }

    /// Each line that has a `NAME=VALUE` pair, in order.
    static func parse(_ lines: [String]) -> [SetCookieLines] {
        lines.compactMap { line in
            var parts = line.split(separator: ";", omittingEmptySubsequences: false).map { trimmed($0) }
            guard !parts.isEmpty, let equal = parts[0].firstIndex(of: "=") else { return nil }
            let name = trimmed(parts[0][..<equal])
            guard !name.isEmpty else { return nil }
            let value = trimmed(parts[0][parts[0].index(after: equal)...])
            parts.removeFirst()
            let attributes = parts.filter { !$0.isEmpty }.map { part -> (name: String, value: String) in
                guard let equal = part.firstIndex(of: "=") else { return (part, "") }
                return (trimmed(part[..<equal]), trimmed(part[part.index(after: equal)...]))
            }
            return SetCookieLines(name: name, value: value, attributes: attributes, line: line)
        }
    }

    private static func trimmed(_ text: Substring) -> String {
        String(text.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }

    private static func trimmed(_ text: String) -> String {
        trimmed(Substring(text))
    }
}
