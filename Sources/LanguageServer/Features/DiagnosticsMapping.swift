import JSON
import JSONRPC
import RunnerSystem
import WorkflowLanguage
import WorkflowModel

/// `check`'s diagnostics as LSP diagnostics, by the file they are in: the
/// document, or an included file (then with a related location at the
/// `include` line that brought it in). Notes with a place are related
/// information; notes without one join the message.
enum DiagnosticsMapping {
    static func diagnostics(of document: OpenDocument, in analysis: LanguageAnalysis, _ encoding: PositionEncoding) -> [String: [JSONValue]] {
        var byFile: [String: [JSONValue]] = [document.uri: []]
        for diagnostic in analysis.diagnostics {
            let zero = TextPosition(line: 0, character: 0)
            let place: (uri: String, range: TextRange) =
                diagnostic.range.map { document.location($0, in: analysis, encoding) }
                ?? (document.uri, TextRange(start: zero, end: zero))
            var message = diagnostic.message
            var related: [JSONValue] = []
            for note in diagnostic.notes {
                if let range = note.range {
                    let location = document.location(range, in: analysis, encoding)
                    related.append(
                        .object([
                            ("location", locationJSON(uri: location.uri, range: location.range)),
                            ("message", .string(note.message)),
                        ]))
                } else {
                    message += "\nnote: " + note.message
                }
            }
            if place.uri != document.uri, let range = diagnostic.range, let include = includeLine(of: range.start, in: analysis, document, encoding) {
                related.append(
                    .object([
                        ("location", locationJSON(uri: include.uri, range: include.range)),
                        ("message", .string("included here")),
                    ]))
            }
            let severity: DiagnosticSeverityCode
            switch diagnostic.severity {
            case .error: severity = .error
            case .warning: severity = .warning
            case .note: severity = .information
            }
            var members: [(String, JSONValue)] = [
                ("range", place.range.json), ("severity", .integer(severity.rawValue)),
                ("source", .string("promise-run")), ("message", .string(message)),
            ]
            if !related.isEmpty { members.append(("relatedInformation", .array(related))) }
            byFile[place.uri, default: []].append(.object(members))
        }
        if document.hadInvalidUTF8 {
            let replacement: [UInt8] = [0xEF, 0xBF, 0xBD]
            let bytes = document.bytes
            var offset = 0
            if bytes.count >= 3 {
                offset = (0...(bytes.count - 3)).first { bytes[$0..<($0 + 3)].elementsEqual(replacement) } ?? 0
            }
            let range = document.lines.range(offset, min(bytes.count, offset + 3), encoding)
            byFile[document.uri, default: []].insert(
                .object([
                    ("range", range.json), ("severity", .integer(DiagnosticSeverityCode.error.rawValue)), ("source", .string("promise-run")),
                    ("message", .string("the text is not valid UTF-8 (the bad bytes show as U+FFFD); save the file as UTF-8")),
                ]), at: 0)
        }
        return byFile
    }

    /// The `include` line (in the document, or in an included file that
    /// includes another) that brought in the file holding `offset`.
    private static func includeLine(
        of offset: Int, in analysis: LanguageAnalysis, _ document: OpenDocument,
        _ encoding: PositionEncoding
    ) -> (uri: String, range: TextRange)? {
        guard let segment = analysis.source.segment(at: offset), let from = segment.includedFrom,
            let colon = from.lastIndex(of: ":"), let line = Int(from[from.index(after: colon)...])
        else { return nil }
        let file = String(from[..<colon])
        let path = Paths.normalized(file.hasPrefix("/") ? file : Paths.absolute(file, from: ProcessEnvironment.currentDirectory()))
        if path == Paths.normalized(document.path) || file == document.path {
            let start = document.lines.starts[min(line - 1, document.lines.starts.count - 1)]
            return (document.uri, document.lines.range(start, document.lines.end(ofLine: document.lines.line(of: start)), encoding))
        }
        return (
            DocumentURI.uri(of: path),
            TextRange(
                start: TextPosition(line: line - 1, character: 0),
                end: TextPosition(line: line - 1, character: 0))
        )
    }
}
