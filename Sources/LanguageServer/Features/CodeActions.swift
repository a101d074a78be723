import JSON
import JSONRPC
import RunnerSystem
import WorkflowLanguage
import WorkflowModel

/// Quick fixes (every did-you-mean; an undeclared variable's
/// `var NAME = ""`), document links on `include` paths, and workspace
/// symbols (the labels and variables of every workflow under the
/// workspace folders).
/// See docs/language.md, 'Editors'.
extension LanguageServer {
    func codeActions(_ document: OpenDocument, _ params: JSONDocument) -> Result<JSONValue, ResponseError> {
        var actions: [JSONValue] = []
        for diagnostic in params[member: "context"]?[member: "diagnostics"]?.array ?? [] {
            guard let message = diagnostic[member: "message"]?.string, let range = diagnostic[member: "range"]?.range else { continue }
            let quoted = Self.quotedWords(message)
            if let meant = message.firstRange(of: "did you mean '"), let wrong = quoted.first,
                let right = Self.quotedWords(String(message[meant.lowerBound...])).first
            {
                let start = document.lines.offset(of: range.start, encoding)
                let end = document.lines.offset(of: range.end, encoding)
                var target = start..<max(start, end)
                // Only the misspelt word, where the range holds more.
                if let found = document.bytes[target].firstRange(of: Array(wrong.utf8)) { target = found }
                let edit = textEditJSON(range: document.lines.range(target.lowerBound, target.upperBound, encoding), newText: right)
                actions.append(Self.quickFix("Change '\(wrong)' to '\(right)'", document.uri, [edit], diagnostic, preferred: true))
            }
            if message.hasPrefix("undeclared variable '"), let name = quoted.first {
                let line = Self.declarationLine(in: document)
                let place = TextRange(start: TextPosition(line: line, character: 0), end: TextPosition(line: line, character: 0))
                let edit = textEditJSON(range: place, newText: "var \(name) = \"\"\n")
                actions.append(Self.quickFix("Declare 'var \(name) = \"\"'", document.uri, [edit], diagnostic, preferred: false))
            }
        }
        return .success(.array(actions))
    }

    /// The words between single quotes, in order.
    private static func quotedWords(_ message: String) -> [String] {
        message.split(separator: "'", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    /// Where a new `var` goes: after the `workflow` line, else first.
    private static func declarationLine(in document: OpenDocument) -> Int {
        let bytes = document.bytes
        return bytes.starts(with: Array("workflow ".utf8)) ? min(1, document.lines.starts.count - 1) : 0
    }

    private static func quickFix(_ title: String, _ uri: String, _ edits: [JSONValue], _ diagnostic: JSONDocument, preferred: Bool) -> JSONValue {
        .object([
            ("title", .string(title)), ("kind", .string("quickfix")), ("isPreferred", .bool(preferred)),
            ("diagnostics", .array([diagnostic.jsonValue])),
            ("edit", .object([("changes", .object([(uri, .array(edits))]))])),
        ])
    }

    /// A link on each `include "PATH"` line's path, to the file.
    func documentLinks(_ document: OpenDocument) -> JSONValue {
        .array(
            Self.includes(of: document).map { include in
                .object([
                    ("range", document.lines.range(include.path.lowerBound, include.path.upperBound, encoding).json),
                    ("target", .string(DocumentURI.uri(of: include.target))),
                ])
            })
    }

    /// Each `include "PATH"` line's path (its bytes) and the file it names
    /// (normalized), read from the text alone.
    static func includes(of document: OpenDocument) -> [(path: Range<Int>, target: String)] {
        includes(of: document.bytes, path: document.path, lines: document.lines)
    }

    /// The same, of a file's text (`path`: where it is).
    static func includes(of bytes: [UInt8], path: String, lines: LineIndex? = nil) -> [(path: Range<Int>, target: String)] {
        let lines = lines ?? LineIndex(bytes)
        var found: [(path: Range<Int>, target: String)] = []
        for (line, start) in lines.starts.enumerated() {
            let text = bytes[start..<lines.end(ofLine: line)]
            // `include`, a space or a tab, at the start of a line (the expander's test).
            guard text.starts(with: Array("include".utf8)), text.count > 7, [0x20, 0x09].contains(text[text.startIndex + 7]),
                let open = text.firstIndex(of: UInt8(ascii: "\"")),
                let close = text[(open + 1)...].firstIndex(of: UInt8(ascii: "\""))
            else { continue }
            let included = String(decoding: bytes[(open + 1)..<close], as: UTF8.self)
            found.append(((open + 1)..<close, Paths.normalized(Paths.absolute(included, from: Paths.parent(of: path)))))
        }
        return found
    }

    /// The labels and variables of every workflow under the workspace
    /// folders (and every open one) whose name holds the query (any case).
    func workspaceSymbols(_ params: JSONDocument) -> JSONValue {
        let query = (params[member: "query"]?.string ?? "").lowercased()
        var paths = workspaceWorkflows()
        for document in documents.values.sorted(by: { $0.uri < $1.uri }) where !paths.contains(document.normalizedPath) {
            paths.append(document.normalizedPath)
        }
        let texts = overlay
        var symbols: [JSONValue] = []
        for path in paths {
            guard let bytes = texts[path] ?? (try? FileSystem.readBytes(path).get()) else { continue }
            let index = WorkflowCompiler.analyze(SourceFile(path: path, bytes: bytes), overlay: texts)
            let lines = LineIndex(bytes)
            for definition in index.index.definitions where query.isEmpty || definition.name.lowercased().contains(query) {
                // Only what this file declares itself (its includes list theirs).
                var start = definition.range.start
                if !index.source.segments.isEmpty {
                    guard let segment = index.source.segment(at: start), Paths.normalized(segment.file.path) == path else { continue }
                    start = segment.fileOffset + start - segment.start
                }
                let end = start + (definition.range.end - definition.range.start)
                let kind: SymbolKindCode = definition.kind == .label ? .function : .variable
                symbols.append(
                    .object([
                        ("name", .string(definition.name)), ("kind", .integer(kind.rawValue)),
                        ("containerName", .string(path.split(separator: "/").last.map(String.init) ?? path)),
                        ("location", locationJSON(uri: DocumentURI.uri(of: path), range: lines.range(start, min(end, bytes.count), encoding))),
                    ]))
            }
        }
        return .array(symbols)
    }
}

extension LanguageServer {
    /// The semantic tokens legend: the language table's kinds of word.
    static var semanticTokensLegend: JSONValue {
        .object([("tokenTypes", .array(SemanticTokens.Kind.allCases.map { .string($0.name) })), ("tokenModifiers", .array([]))])
    }

    /// `textDocument/semanticTokens/full`: five numbers a token, each
    /// position relative to the one before (LSP's encoding).
    func semanticTokens(_ document: OpenDocument) -> JSONValue {
        var data: [JSONValue] = []
        var line = 0
        var character = 0
        for token in SemanticTokens.tokens(of: document.bytes) {
            let range = document.lines.range(token.start, token.end, encoding)
            let deltaLine = range.start.line - line
            data += [
                .integer(deltaLine), .integer(deltaLine == 0 ? range.start.character - character : range.start.character),
                .integer(range.end.character - range.start.character), .integer(token.kind.rawValue), .integer(0),
            ]
            line = range.start.line
            character = range.start.character
        }
        return .object([("data", .array(data))])
    }
}
