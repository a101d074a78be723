import PromiseEngine

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

    /// The value and the forms of it that are worth masking.
    static func forms(of value: String) -> [String] {
        var forms = [value]
        func add(_ form: String, minimumBytes: Int = 1) {
            if form.utf8.count >= minimumBytes, !forms.contains(form) { forms.append(form) }
        }
        let quoted = Filter.jsonQuoted(value)
        add(String(quoted.dropFirst().dropLast()))
        add(Filter.percentEncoded(value))
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

    package var isEmpty: Bool { values.withLock { $0.isEmpty } }

    /// `text` with every secret replaced by `***`.
    package func mask(_ text: String) -> String {
        let secrets = values.withLock { $0 }
        guard !secrets.isEmpty else { return text }
        var masked = text
        for secret in secrets where masked.contains(secret) {
            masked = masked.replacing(secret, with: "***")
        }
        return masked
    }
}
