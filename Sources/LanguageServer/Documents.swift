import RunnerSystem
import WorkflowLanguage
import WorkflowModel

/// A document the editor has open: its text as the editor has it (not as
/// saved), its version, and its analyses (its own, and the one its
/// features read: its includer's when it is included), made by
/// the server when first needed after each change.
/// See docs/language.md, 'Editors'.
final class OpenDocument {
    let uri: String
    /// The file's path (includes resolve against its folder).
    let path: String
    private(set) var bytes: [UInt8]
    private(set) var lines: LineIndex
    var version: Int
    /// The text the editor sent had bytes that were not UTF-8 (shown as
    /// U+FFFD): said as a diagnostic.
    var hadInvalidUTF8 = false
    /// The parse, check and index of this text (its includes expanded).
    var ownAnalysis: LanguageAnalysis?
    /// The analysis the features read (see `LanguageServer.analysis(of:)`).
    var contextAnalysis: LanguageAnalysis?
    /// Whether `contextAnalysis` is of a file that includes this one.
    var isIncluded = false
    /// `path`, normalized: how analyses name the file.
    let normalizedPath: String

    init(uri: String, path: String, text: String, version: Int) {
        self.uri = uri
        self.path = path
        self.normalizedPath = Paths.normalized(path)
        self.bytes = Array(text.utf8)
        self.lines = LineIndex(bytes)
        self.version = version
    }

    /// Replaces the whole text.
    func replace(with text: String) {
        bytes = Array(text.utf8)
        lines = LineIndex(bytes)
        ownAnalysis = nil
        contextAnalysis = nil
    }

    /// Replaces a range of the text (incremental sync).
    func replace(_ range: TextRange, with text: String, _ encoding: PositionEncoding) {
        let start = lines.offset(of: range.start, encoding)
        let end = max(start, lines.offset(of: range.end, encoding))
        bytes.replaceSubrange(start..<end, with: Array(text.utf8))
        lines = LineIndex(bytes)
        ownAnalysis = nil
        contextAnalysis = nil
    }

    // MARK: Offsets between the document and its analysis

    /// Whether a run of the analysed source is this document's text (the
    /// analysis may be of the file that includes it).
    private func owns(_ segment: SourceFile.Segment) -> Bool {
        Paths.normalized(segment.file.path) == normalizedPath
    }

    /// The document offset of an offset in the analysed source (which has
    /// the included files inserted); nil when it is in another file.
    func documentOffset(_ offset: Int, in analysis: LanguageAnalysis) -> Int? {
        guard let segment = analysis.source.segment(at: offset) else { return offset }
        guard owns(segment) else { return nil }
        return segment.fileOffset + offset - segment.start
    }

    /// The offset in the analysed source of a document offset.
    func sourceOffset(_ offset: Int, in analysis: LanguageAnalysis) -> Int {
        guard !analysis.source.segments.isEmpty else { return offset }
        for segment in analysis.source.segments where owns(segment) {
            let length = segment.end - segment.start
            if offset >= segment.fileOffset && offset <= segment.fileOffset + length {
                return segment.start + offset - segment.fileOffset
            }
        }
        return offset
    }

    /// Where an offset of the analysed source is, as an LSP location: in
    /// this document or in an included file.
    func location(_ range: SourceRange, in analysis: LanguageAnalysis, _ encoding: PositionEncoding) -> (uri: String, range: TextRange) {
        if let start = documentOffset(range.start, in: analysis) {
            // The last byte's, plus one: `end` may be the next file's first.
            let end = range.end > range.start ? documentOffset(range.end - 1, in: analysis).map { $0 + 1 } ?? start : start
            return (uri, lines.range(start, max(start, end), encoding))
        }
        let segment = analysis.source.segment(at: range.start)!
        let file = segment.file
        let index = LineIndex(file.bytes)
        let start = segment.fileOffset + range.start - segment.start
        let end = min(file.bytes.count, max(start, segment.fileOffset + range.end - segment.start))
        let path = file.path.hasPrefix("/") ? file.path : Paths.absolute(file.path, from: Paths.parent(of: self.path))
        return (DocumentURI.uri(of: Paths.normalized(path)), index.range(start, end, encoding))
    }
}
