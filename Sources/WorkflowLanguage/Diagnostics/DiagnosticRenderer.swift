import PromiseEngine
package import WorkflowModel

/// Renders diagnostics as a compiler does:
///
///     build.workflow:12:9: error: unknown attribute 'timout' for sh; did you mean 'timeout'?
///         timout 10m
///         ^~~~~~
package struct DiagnosticRenderer: Sendable {
    package let source: SourceFile
    /// ANSI colors (for a terminal); plain text otherwise.
    package let colored: Bool
    private let lines: LineTable

    package init(source: SourceFile, colored: Bool = false) {
        self.source = source
        self.colored = colored
        self.lines = source.lineTable()
    }

    /// All diagnostics, each followed by a newline.
    package func render(_ diagnostics: [Diagnostic]) -> String {
        var output = ""
        for diagnostic in diagnostics {
            output += render(diagnostic)
        }
        return output
    }

    /// One diagnostic with its source line, caret and notes.
    package func render(_ diagnostic: Diagnostic) -> String {
        var output = entry(diagnostic.severity, diagnostic.message, at: diagnostic.range)
        for note in diagnostic.notes {
            output += entry(.note, note.message, at: note.range)
        }
        return output
    }

    private func entry(_ severity: Diagnostic.Severity, _ message: String, at place: SourceRange?) -> String {
        guard let place else {
            if severity == .note {
                return "\(paint("note:", color(.note))) \(message)\n"
            }
            return "\(paint(source.displayPath + ": ", bold))\(paint(severity.rawValue + ":", color(severity))) \(paint(message, bold))\n"
        }
        // With included files, the place is in the file the bytes came from.
        var range = place
        var path = source.displayPath
        var bytes = source.bytes
        var lines = self.lines
        var includedFrom: String?
        if let segment = source.segment(at: range.start) {
            let shift = segment.fileOffset - segment.start
            range = SourceRange(start: range.start + shift, end: min(range.end, segment.end) + shift)
            path = segment.file.displayPath
            bytes = segment.file.bytes
            lines = segment.lines
            includedFrom = segment.includedFrom
        }
        let location = lines.location(of: range.start)
        var output = paint("\(path):\(location.line):\(location.column): ", bold)
        output += paint(severity.rawValue + ":", color(severity)) + " " + paint(message, bold) + "\n"
        let lineBytes = lines.lineRange(location.line, in: bytes)
        // A very long line is shown as a window around the range.
        var shownStart = lineBytes.lowerBound
        var shownEnd = lineBytes.upperBound
        if shownEnd - shownStart > DiagnosticRenderer.maximumLineWidth {
            shownStart = max(lineBytes.lowerBound, min(range.start, lineBytes.upperBound) - DiagnosticRenderer.maximumLineWidth / 2)
            while shownStart > lineBytes.lowerBound, bytes[shownStart] & 0xC0 == 0x80 { shownStart -= 1 }
            shownEnd = min(lineBytes.upperBound, shownStart + DiagnosticRenderer.maximumLineWidth)
            while shownEnd < lineBytes.upperBound, bytes[shownEnd] & 0xC0 == 0x80 { shownEnd += 1 }
        }
        let cutBefore = shownStart > lineBytes.lowerBound
        // Control characters would act on the terminal: show them as '?'.
        let shown = bytes[shownStart..<shownEnd].map { byte -> UInt8 in
            (byte < 0x20 && byte != 0x09) || byte == 0x7F ? UInt8(ascii: "?") : byte
        }
        output += (cutBefore ? "…" : "") + String(decoding: shown, as: UTF8.self) + (shownEnd < lineBytes.upperBound ? "…" : "") + "\n"
        // Keep tabs so that the caret lines up under the same characters.
        var indent = cutBefore ? " " : ""
        var offset = shownStart
        while offset < range.start && offset < shownEnd {
            let byte = bytes[offset]
            if byte == 0x09 {
                indent += "\t"
            } else if byte & 0xC0 != 0x80 {
                indent += " "
            }
            offset += 1
        }
        var width = 0
        offset = range.start
        while offset < min(range.end, shownEnd) {
            if bytes[offset] & 0xC0 != 0x80 { width += 1 }
            offset += 1
        }
        let underline = "^" + String(repeating: "~", count: max(0, width - 1))
        output += indent + paint(underline, green) + "\n"
        if let includedFrom, severity != .note {
            output += "\(paint("note:", color(.note))) in the file included at \(includedFrom)\n"
        }
        return output
    }

    /// Lines longer than this (in bytes) are shown in part.
    static let maximumLineWidth = 160

    private let bold = "\u{1B}[1m"
    private let green = "\u{1B}[1;32m"

    private func color(_ severity: Diagnostic.Severity) -> String {
        switch severity {
        case .error: return "\u{1B}[1;31m"
        case .warning: return "\u{1B}[1;35m"
        case .note: return "\u{1B}[1;30m"
        }
    }

    private func paint(_ text: String, _ code: String) -> String {
        colored ? code + text + "\u{1B}[0m" : text
    }
}

extension Workflow {
    /// An error found while running, at a place in the file (for example
    /// an expression whose value could not be resolved), rendered as the
    /// checker renders its diagnostics.
    package func renderedError(_ message: String, at range: SourceRange, colored: Bool = false) -> String {
        DiagnosticRenderer(source: source, colored: colored).render(Diagnostic(.error, message, at: range))
    }
}
