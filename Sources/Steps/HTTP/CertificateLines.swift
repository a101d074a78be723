import CSystemShims
import PromiseEngine
import RunnerSystem
import WorkflowModel

/// The server's certificate from libcurl's CURLINFO_CERTINFO,
/// in promise-run's forms: names in RFC 4514 order without spaces around
/// `=` (`CN=api,O=Example`), times in RFC 3339 UTC, the serial number in
/// lower-case hex without colons.
/// See docs/steps.md, 'For Hurl users'.
enum CertificateLines {
    /// The first certificate of the chain (the server's own), or nil when
    /// libcurl gathered none.
    static func read(_ easy: UnsafeMutableRawPointer) -> ServerCertificate? {
        final class Lines {
            var items: [String] = []
        }
        let lines = Lines()
        let count = withExtendedLifetime(lines) {
            csh_curl_certificate_lines(
                easy, 0,
                { data, line in
                    Unmanaged<Lines>.fromOpaque(data!).takeUnretainedValue().items.append(String(cString: line!))
                }, Unmanaged.passUnretained(lines).toOpaque())
        }
        guard count > 0 else { return nil }
        return parse(lines.items)
    }

    /// The fields of `Subject:...`, `Issuer:...`, `Serial Number:...`,
    /// `Start date:...`, `Expire date:...` lines.
    static func parse(_ lines: [String]) -> ServerCertificate {
        var fields: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            if fields[name] == nil { fields[name] = String(line[line.index(after: colon)...]) }
        }
        return ServerCertificate(
            subject: distinguishedName(fields["subject"] ?? ""),
            issuer: distinguishedName(fields["issuer"] ?? ""),
            startDate: time(fields["start date"] ?? ""),
            expireDate: time(fields["expire date"] ?? ""),
            serialNumber: hex(fields["serial number"] ?? ""))
    }

    /// OpenSSL's one-line form (`C = US, O = "Example, Inc.", CN = api`,
    /// the most general first) in RFC 4514's (`CN=api,O=Example\, Inc.,C=US`,
    /// the most specific first). A name already in RFC 4514's form (no
    /// ` = `) is kept.
    static func distinguishedName(_ text: String) -> String {
        let text = String(text.trimmingSpaces)
        guard text.contains(" = ") else { return text }
        var parts: [(String, String)] = []
        var current = ""
        var quoted = false
        var escaped = false
        var pieces: [String] = []
        for character in text {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                current.append(character)
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
                current.append(character)
            } else if character == ",", !quoted {
                pieces.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        pieces.append(current)
        for piece in pieces {
            guard let equal = piece.firstIndex(of: "=") else { continue }
            let key = String(piece[..<equal].trimmingSpaces)
            var value = String(piece[piece.index(after: equal)...].trimmingSpaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            parts.append((key, unescaped(value)))
        }
        return parts.reversed().map { "\($0.0)=\(escaped4514($0.1))" }.joined(separator: ",")
    }

    private static func unescaped(_ value: String) -> String {
        var out = ""
        var escaped = false
        for character in value {
            if escaped {
                out.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                out.append(character)
            }
        }
        return out
    }

    /// A value escaped as RFC 4514 §2.4 asks.
    private static func escaped4514(_ value: String) -> String {
        var out = ""
        for (index, character) in value.enumerated() {
            if ",+\"\\<>;".contains(character) || (index == 0 && (character == "#" || character == " ")) {
                out.append("\\")
            }
            out.append(character)
        }
        if out.hasSuffix(" ") { out = String(out.dropLast()) + "\\ " }
        return out
    }

    /// `Nov 27 23:37:00 2026 GMT` (OpenSSL), or `2026-11-27 23:37:00 GMT`,
    /// as `2026-11-27T23:37:00Z`; anything else as it came.
    static func time(_ text: String) -> String {
        let words = text.split(separator: " ")
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        if words.count >= 4, let month = months.firstIndex(of: String(words[0])), let day = Int(words[1]), let year = Int(words[3]),
            words[2].split(separator: ":").count == 3
        {
            let clock = words[2].split(separator: ":").map { String($0) }
            func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
            return "\(year)-\(two(month + 1))-\(two(day))T\(clock[0]):\(clock[1]):\(String(clock[2].prefix(2)))Z"
        }
        if words.count >= 2, let seconds = RFC3339.parse(words[0] + "T" + words[1] + "Z") {
            return RFC3339.format(seconds, fractionDigits: 0)
        }
        return String(text.trimmingSpaces)
    }

    /// Lower-case hex without colons or spaces.
    static func hex(_ text: String) -> String {
        String(text.lowercased().filter { $0 != ":" && $0 != " " })
    }
}
