/// What is wrong with the text of an http step's URL, said for people:
/// the scheme, the host or the port. The one description the HTTP step
/// gives when it cannot send (`http://127.0.0.1:99999/x`: the port is out
/// of range) and `check` gives for a URL written without `{{ }}`, before
/// anything runs.
package enum HTTPURLShape {
    /// Nil when the text has the shape `http(s)://HOST[:PORT][/...]`.
    package static func problem(_ text: String) -> String? {
        // Spaces around it (a list's line, a variable read from a file):
        // said as such, not as a missing scheme.
        let spaces: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }
        if let first = text.first, let last = text.last, spaces(first) || spaces(last),
            !text.allSatisfy(spaces)
        {
            let trimmed = String(text.drop(while: spaces).reversed().drop(while: spaces).reversed())
            return "'\(text)' has white space around it; write the URL without it ('\(trimmed)')"
        }
        // A scheme is letters before a ':' that no port number follows.
        let letters = text.prefix { $0.isASCII && ($0.isLetter || $0 == "+" || $0 == "-" || $0 == ".") }
        let afterLetters = text[letters.endIndex...]
        let written = !letters.isEmpty && afterLetters.hasPrefix(":") && !(afterLetters.dropFirst().first?.isNumber ?? false)
        guard written else {
            return "'\(text)' is not an http:// or https:// URL (it has no scheme; write it as 'http://\(text)')"
        }
        let scheme = letters.lowercased()
        guard scheme == "http" || scheme == "https" else {
            return "'\(text)' is not an http:// or https:// URL (its scheme is '\(scheme)'"
                + Suggestion.phrase(for: scheme, among: ["http", "https"]) + ")"
        }
        guard afterLetters.hasPrefix("://") else {
            return "'\(text)': write '\(scheme)://' with two slashes before the host"
        }
        let rest = afterLetters.dropFirst(3)
        var authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var host = authority
        var port: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return "'\(text)': its IPv6 address has no closing ']'" }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return "'\(text)': expected ':PORT' after the IPv6 address" }
                port = after.dropFirst()
            }
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            port = authority[authority.index(after: colon)...]
        }
        if host.isEmpty { return "'\(text)' has no host (write it as \(scheme)://HOST/...)" }
        if host.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value >= 0x7F }) {
            return "'\(text)': its host '\(host)' holds a space or a character that is not ASCII"
        }
        if let port, !port.isEmpty {
            guard port.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                return "'\(text)': its port '\(port)' is not a number"
            }
            guard port.count <= 5, let value = Int(port), (1...65535).contains(value) else {
                return "'\(text)': its port \(port) is out of range (1 to 65535)"
            }
        }
        return nil
    }
}
