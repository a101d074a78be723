import PromiseEngine
import WorkflowModel

/// Short, quoted pieces of output for failure messages: the start of a
/// body, the end of a process's stream (where errors are), with line
/// breaks and control characters escaped so a message stays one line.
enum Excerpt {
    static let defaultLength = 200

    /// `"first 200 characters…"`.
    static func head(_ text: String, length: Int = defaultLength) -> String {
        let characters = text.prefix(length + 1)
        if characters.count <= length { return quoted(Substring(text)) }
        return quoted(characters.prefix(length)) + "…"
    }

    /// Text shown as it is (JSON, say), cut to `length` characters with `…`.
    static func clip(_ text: String, length: Int = defaultLength) -> String {
        let characters = text.prefix(length + 1)
        return characters.count <= length ? text : characters.prefix(length) + "…"
    }

    /// `…"last 200 characters"`, without the final newline.
    static func tail(_ text: String, length: Int = defaultLength) -> String {
        let trimmed = StepResult.withoutFinalNewline(text)
        let characters = trimmed.suffix(length + 1)
        if characters.count <= length { return quoted(Substring(trimmed)) }
        return "…" + quoted(characters.suffix(length))
    }

    /// What a process left on stderr, else on stdout: `; stderr: "..."`, or
    /// nothing when both are empty.
    static func processOutput(_ result: StepResult) -> String {
        if let stderr = result.stderr, !isBlank(stderr.text) { return "; stderr: " + tail(stderr.text) }
        if let stdout = result.stdout, !isBlank(stdout.text) { return "; stdout: " + tail(stdout.text) }
        return ""
    }

    /// `; body: "..."`, or nothing for an empty body.
    static func body(_ result: StepResult) -> String {
        guard let body = result.body, !body.text.isEmpty else { return "" }
        return "; body: " + head(body.text)
    }

    /// The stream an expectation reads, as an excerpt: a body from its
    /// start, a process stream from its end.
    static func stream(_ stream: ResultStream, _ text: String) -> String {
        stream == .body ? head(text) : tail(text)
    }

    private static func isBlank(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
    }

    /// The text in double quotes with JSON's backslash escapes (the same
    /// form `Secrets` knows, so a secret quoted here is still masked).
    static func quoted(_ text: Substring) -> String {
        Filter.jsonQuoted(String(text))
    }
}
