import PromiseEngine
package import WorkflowModel

/// The values that must never be shown: `secret` variables, and the forms
/// they take through filters. Every output, report and error message goes
/// through `mask`.
package final class Secrets: Sendable {
    private let values = Lock<[String]>([])

    package init() {}

    /// Adds a secret and the forms it takes on its way to an output: each
    /// of its lines (output is shown line by line), and its escaped and
    /// encoded forms (error messages quote text with backslash escapes,
    /// reports as JSON, filters shell-quote and percent-encode), so a value
    /// made from a secret and filtered later is masked too.
    package func add(_ value: String) {
        guard !value.isEmpty else { return }
        let forms = Self.forms(of: value)
        values.withLock { values in
            var changed = false
            for form in forms where !values.contains(form) {
                values.append(form)
                changed = true
            }
            // Longest first, so a secret containing another is masked whole.
            if changed { values.sort { $0.utf8.count > $1.utf8.count } }
        }
    }

    /// Adds the `Authorization: Basic` token an http step makes from a
    /// secret (in `basic-auth` or in the URL's user info): a server that
    /// echoes its request shows the token, which gives the secret away.
    package func addTokens(madeBy request: ResolvedHTTPRequest) {
        if let auth = request.basicAuth, holdsSecret(auth.user) || holdsSecret(auth.password) {
            add(BasicAuthToken.of(user: auth.user, password: auth.password))
        }
        if let info = BasicAuthToken.userInfo(inURL: request.url), holdsSecret(info) || holdsSecret(Filter.percentDecoded(info)) {
            add(BasicAuthToken.of(userInfo: info))
        }
    }

    private func holdsSecret(_ text: String) -> Bool {
        !text.isEmpty && mask(text) != text
    }

    /// Whether a step's stored text (its output and captures, what the
    /// incremental store and the shared cache would keep) holds a secret.
    package func appear(in result: StepResult) -> Bool {
        guard values.withLock({ !$0.isEmpty }) else { return false }
        return holdsSecret(result.stdout?.text ?? "") || holdsSecret(result.stderr?.text ?? "")
            || result.captures.values.contains(where: holdsSecret)
    }

    /// The value and the forms of it that are worth masking.
    static func forms(of value: String) -> [String] {
        var forms = [value]
        func add(_ form: String, minimumBytes: Int = 1) {
            if form.utf8.count >= minimumBytes, !forms.contains(form) { forms.append(form) }
        }
        let quoted = Filter.jsonQuoted(value)
        add(String(quoted.dropFirst().dropLast()))
        add(Filter.percentEncoded(value))
        add(requestLineEncoded(value))
        add(Filter.trimmed(value))
        let shellQuoted = Filter.shellQuoted(value)
        add(String(shellQuoted.dropFirst().dropLast()))
        // Lines of a multi-line secret (a PEM key, say); lines too short to
        // be secret on their own (a brace) stay visible.
        let lines = value.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
        if lines.count > 1 {
            for line in lines { add(Filter.trimmed(String(line)), minimumBytes: 4) }
        }
        return forms
    }

    /// The value as an HTTP request line carries it in a URL: only bytes
    /// that cannot stand there percent-encoded (space, `"`, `<`, `>`, `{`,
    /// `}`, `|`, `\`, `^`, backtick, controls, non-ASCII), `/` and the
    /// rest kept (docs/steps.md), so a step's final URL is masked too.
    static func requestLineEncoded(_ value: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        for byte in value.utf8 {
            if byte <= 0x20 || byte >= 0x7F || "\"<>{}|\\^`".utf8.contains(byte) {
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// No secret is known (yet): nothing to mask.
    package var isEmpty: Bool { values.withLock { $0.isEmpty } }

    /// `text` with every secret replaced by `***`, and with the part of a
    /// secret that a cut left behind masked too: text cut to a length ends
    /// (or, for a tail, starts) with `…`, so the start of a secret just
    /// before a `…` (or its end just after one) is a secret's piece, masked
    /// whatever cut it (an excerpt of a body, a summary, a console column).
    package func mask(_ text: String) -> String {
        let secrets = values.withLock { $0 }
        guard !secrets.isEmpty else { return text }
        var masked = text
        for secret in secrets where masked.contains(secret) {
            masked = masked.replacing(secret, with: "***")
        }
        if masked.contains(Self.ellipsis) { masked = Self.maskingCuts(masked, secrets: secrets) }
        return masked
    }

    private static let ellipsis = "…"
    /// A piece shorter than this at a cut stays: three characters of a
    /// secret say nothing of it, and shorter ones would mask ordinary text.
    static let shortestPiece = 4

    /// Masks the piece of a secret that stands against a `…` (a closing or
    /// opening quote between them allowed, as excerpts quote what they cut).
    static func maskingCuts(_ text: String, secrets: [String]) -> String {
        let bytes = Array(text.utf8)
        let mark = Array(ellipsis.utf8)
        let forms = secrets.map { Array($0.utf8) }.filter { $0.count > shortestPiece }
        var cuts: [Range<Int>] = []
        var index = 0
        while index + mark.count <= bytes.count {
            guard bytes[index] == mark[0], bytes[index..<index + mark.count].elementsEqual(mark) else {
                index += 1
                continue
            }
            var before = index
            if before > 0, bytes[before - 1] == UInt8(ascii: "\"") { before -= 1 }
            var after = index + mark.count
            if after < bytes.count, bytes[after] == UInt8(ascii: "\"") { after += 1 }
            var longestBefore = 0
            var longestAfter = 0
            for form in forms {
                // The start of a secret, ending at the cut.
                var length = min(form.count - 1, before)
                while length >= shortestPiece, length > longestBefore {
                    if bytes[(before - length)..<before].elementsEqual(form[0..<length]) {
                        longestBefore = length
                        break
                    }
                    length -= 1
                }
                // The end of a secret, starting after the cut.
                length = min(form.count - 1, bytes.count - after)
                while length >= shortestPiece, length > longestAfter {
                    if bytes[after..<(after + length)].elementsEqual(form[(form.count - length)...]) {
                        longestAfter = length
                        break
                    }
                    length -= 1
                }
            }
            for cut in [(before - longestBefore)..<before, after..<(after + longestAfter)] where !cut.isEmpty {
                cuts.append(cut)
            }
            index += mark.count
        }
        guard !cuts.isEmpty else { return text }
        // Pieces that touch or overlap become one (a secret holding a `…`
        // may give pieces that reach over earlier ones).
        cuts.sort { $0.lowerBound < $1.lowerBound }
        var merged: [Range<Int>] = []
        for cut in cuts {
            if let last = merged.last, cut.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, cut.upperBound)
            } else {
                merged.append(cut)
            }
        }
        var result = bytes
        for cut in merged.reversed() { result.replaceSubrange(cut, with: Array("***".utf8)) }
        return String(decoding: result, as: UTF8.self)
    }
}
