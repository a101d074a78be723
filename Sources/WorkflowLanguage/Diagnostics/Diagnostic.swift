import PromiseEngine
package import WorkflowModel

/// A problem found in a workflow file before anything runs.
package struct Diagnostic: Sendable, Hashable {
    /// How serious a diagnostic is; any error stops the run.
    package enum Severity: String, Sendable {
        case error, warning, note
    }

    /// An extra line under a diagnostic, with or without a place in the file.
    package struct Note: Sendable, Hashable {
        package var message: String
        package var range: SourceRange?

        package init(_ message: String, at range: SourceRange? = nil) {
            self.message = Diagnostic.bounded(message)
            self.range = range
        }
    }

    package var severity: Severity
    package var message: String
    /// Where the problem is; `nil` for problems of the file as a whole.
    package var range: SourceRange?
    package var notes: [Note]

    package init(_ severity: Severity = .error, _ message: String, at range: SourceRange?, notes: [Note] = []) {
        self.severity = severity
        self.message = Self.bounded(message)
        self.range = range
        self.notes = notes
    }

    /// The message with each quoted word or text (`'...'`) of more than 80
    /// characters shortened to its start and end around `…`, and the whole
    /// cut at 1,000 characters: a 50 MB unknown word is an error line of a
    /// hundred characters, not of 50 MB.
    package static func bounded(_ message: String) -> String {
        guard message.utf8.count > 200 else { return message }
        var result = ""
        var rest = Substring(message)
        while let open = rest.firstIndex(of: "'") {
            result += rest[...open]
            let afterOpen = rest.index(after: open)
            guard let close = rest[afterOpen...].firstIndex(of: "'") else {
                rest = rest[afterOpen...]
                break
            }
            let quoted = rest[afterOpen..<close]
            if quoted.count > 80 {
                result += quoted.prefix(60) + "…" + quoted.suffix(15)
                result += " (\(quoted.utf8.count) bytes)"
            } else {
                result += quoted
            }
            result += "'"
            rest = rest[rest.index(after: close)...]
        }
        result += rest
        if result.count > 1000 { result = String(result.prefix(1000)) + "…" }
        return result
    }
}

/// Collects diagnostics up to a limit, so that a file of garbage yields a
/// bounded report; after the limit the parser stops.
package struct DiagnosticBag: Sendable {
    /// At most this many errors are kept; one more says "too many errors".
    package static let defaultLimit = 50

    package private(set) var diagnostics: [Diagnostic] = []
    package private(set) var errorCount = 0
    package private(set) var warningCount = 0
    package let limit: Int
    /// True once the limit was reached: callers stop looking for more.
    package private(set) var isFull = false

    package init(limit: Int = DiagnosticBag.defaultLimit) {
        self.limit = limit
    }

    package var hasErrors: Bool { errorCount > 0 }

    package mutating func error(_ message: String, at range: SourceRange?, notes: [Diagnostic.Note] = []) {
        add(Diagnostic(.error, message, at: range, notes: notes))
    }

    package mutating func warning(_ message: String, at range: SourceRange?, notes: [Diagnostic.Note] = []) {
        add(Diagnostic(.warning, message, at: range, notes: notes))
    }

    package mutating func add(_ diagnostic: Diagnostic) {
        guard !isFull else { return }
        if diagnostic.severity == .warning {
            // Warnings stop nothing; past the limit they are dropped.
            guard warningCount < limit else { return }
            warningCount += 1
        }
        if diagnostic.severity == .error {
            if errorCount == limit {
                isFull = true
                diagnostics.append(Diagnostic(.error, "too many errors (\(limit)); stopping here", at: nil))
                return
            }
            errorCount += 1
        }
        diagnostics.append(diagnostic)
    }

    /// Sorts by position (stable), keeping "too many errors" last.
    package mutating func sort() {
        let limitNote = isFull ? diagnostics.popLast() : nil
        let indexed = diagnostics.enumerated().sorted { lhs, rhs in
            let left = lhs.element.range?.start ?? Int.max
            let right = rhs.element.range?.start ?? Int.max
            return left != right ? left < right : lhs.offset < rhs.offset
        }
        diagnostics = indexed.map(\.element)
        if let limitNote { diagnostics.append(limitNote) }
    }
}
