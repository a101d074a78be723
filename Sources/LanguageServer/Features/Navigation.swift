import JSON
import JSONRPC
import RunnerSystem
import WorkflowLanguage
import WorkflowModel

/// Hover, go to definition, find references and rename, over the
/// analysis's index; and the `include` lines, whose path leads to the file.
extension LanguageServer {
    /// The name at the cursor (a label or a variable, declared or used).
    private func name(at params: JSONDocument, in document: OpenDocument)
        -> (name: String, kind: SourceIndex.NameKind, range: SourceRange)?
    {
        guard let position = params[member: "position"]?.position else { return nil }
        let analysis = self.analysis(of: document)
        let offset = document.sourceOffset(document.lines.offset(of: position, encoding), in: analysis)
        return analysis.index.name(at: offset)
    }

    /// The word at a position (letters, digits, `_`, `-`) and its range.
    private func word(at params: JSONDocument, in document: OpenDocument) -> (String, Range<Int>)? {
        guard let position = params[member: "position"]?.position else { return nil }
        let span = Self.wordSpan(around: document.lines.offset(of: position, encoding), in: document.bytes)
        guard !span.isEmpty else { return nil }
        return (String(decoding: document.bytes[span], as: UTF8.self), span)
    }

    /// The word (letters, digits, `_`, `-`) around `offset`, empty when
    /// there is none.
    static func wordSpan(around offset: Int, in bytes: [UInt8]) -> Range<Int> {
        func isWord(_ byte: UInt8) -> Bool { ASCIIByte.isIdentifierContinue(byte) || byte == UInt8(ascii: "-") }
        var start = offset
        var end = offset
        while start > 0, isWord(bytes[start - 1]) { start -= 1 }
        while end < bytes.count, isWord(bytes[end]) { end += 1 }
        return start..<end
    }

    func hover(_ document: OpenDocument, _ params: JSONDocument) -> Result<JSONValue, ResponseError> {
        let analysis = self.analysis(of: document)
        var text: String?
        var range: TextRange?
        if let found = name(at: params, in: document) {
            let definitions = analysis.index.definitions(of: found.name, kind: found.kind)
            range = document.location(found.range, in: analysis, encoding).range
            if let definition = definitions.first {
                let place = document.location(definition.range, in: analysis, encoding)
                let line = place.range.start.line + 1
                let whereText = place.uri == document.uri ? "line \(line)" : "\(DocumentURI.path(of: place.uri) ?? place.uri):\(line)"
                switch found.kind {
                case .label:
                    let fields =
                        LanguageTable.fields(of: definition.detail, fileOperation: definition.fileOperation).map(\.name) + definition.captures
                    text =
                        "**\(found.name)**: a `\(definition.detail)` \(LanguageTable.stepKinds.contains { $0.name == definition.detail } ? "step" : "group"), \(whereText)"
                    if !fields.isEmpty { text! += "\n\nfields: " + fields.map { "`\($0)`" }.joined(separator: ", ") }
                case .variable:
                    switch definition.detail {
                    case "secret": text = "**\(found.name)**: a secret, \(whereText) (its value is masked everywhere)"
                    case "foreach": text = "**\(found.name)**: the item of the foreach at \(whereText)"
                    default:
                        text = "**\(found.name)**: a variable, \(whereText)" + (definition.value.map { "\n\n`var \(found.name) = \"\($0)\"`" } ?? "")
                    }
                }
            } else {
                text = "**\(found.name)**: not declared in this file"
            }
        } else if let (word, span) = word(at: params, in: document), let field = fieldDoc(word, before: span.lowerBound, in: document) {
            text = field
            range = document.lines.range(span.lowerBound, span.upperBound, encoding)
        } else if let (word, span) = word(at: params, in: document),
            let doc = wordDoc(word, before: span.lowerBound, in: document)
                ?? LanguageTable.filters.first(where: { $0.name == word }).map(\.doc)
        {
            text = "**\(word)**: \(doc)"
            range = document.lines.range(span.lowerBound, span.upperBound, encoding)
        }
        guard let text else { return .success(.null) }
        var members: [(String, JSONValue)] = [("contents", .object([("kind", .string("markdown")), ("value", .string(text))]))]
        if let range { members.append(("range", range.json)) }
        return .success(.object(members))
    }

    /// What a word of the language means where it is: first on its line
    /// in a step's block, an attribute (a request's `header`); after
    /// `expect`, a subject (a response's `header`).
    private func wordDoc(_ word: String, before start: Int, in document: OpenDocument) -> String? {
        let lineStart = document.lines.starts[document.lines.line(of: start)]
        let text = String(decoding: document.bytes[lineStart..<start], as: UTF8.self)
        // After `|`: a filter (`| json` is the filter, not the attribute).
        if text.last(where: { $0 != " " }) == "|", let filter = LanguageTable.filters.first(where: { $0.name == word }) {
            return "\(filter.doc) (a filter)"
        }
        let before = text.split(separator: " ")
        if before.last == "expect", let subject = LanguageTable.expectationSubjects.first(where: { $0.name == word }) { return subject.doc }
        if before.isEmpty, let owner = CompletionContext.owner(before: lineStart, in: document.bytes),
            let attribute = LanguageTable.attributes.first(where: { $0.name == word && $0.takenBy.contains(owner) })
        {
            return attribute.doc
        }
        return LanguageTable.doc(of: word)
    }

    /// For the field of `{{label.FIELD}}`: what it is.
    private func fieldDoc(_ word: String, before start: Int, in document: OpenDocument) -> String? {
        let bytes = document.bytes
        guard start > 0, bytes[start - 1] == UInt8(ascii: ".") else { return nil }
        var labelStart = start - 1
        while labelStart > 0, ASCIIByte.isIdentifierContinue(bytes[labelStart - 1]) { labelStart -= 1 }
        let label = String(decoding: bytes[labelStart..<(start - 1)], as: UTF8.self)
        guard let definition = analysis(of: document).index.definitions(of: label, kind: .label).first else { return nil }
        if definition.captures.contains(word) { return "**\(label).\(word)**: a capture of `\(label)`" }
        return LanguageTable.fields(of: definition.detail, fileOperation: definition.fileOperation).first { $0.name == word }.map {
            "**\(label).\(word)**: \($0.doc)"
        }
    }

    func definition(_ document: OpenDocument, _ params: JSONDocument) -> Result<JSONValue, ResponseError> {
        if let include = includeTarget(params, document) {
            let zero = TextPosition(line: 0, character: 0)
            return .success(.array([locationJSON(uri: DocumentURI.uri(of: include), range: TextRange(start: zero, end: zero))]))
        }
        guard let found = name(at: params, in: document) else { return .success(.null) }
        let analysis = self.analysis(of: document)
        let locations = analysis.index.definitions(of: found.name, kind: found.kind).map { definition -> JSONValue in
            let place = document.location(definition.range, in: analysis, encoding)
            return locationJSON(uri: place.uri, range: place.range)
        }
        return .success(locations.isEmpty ? .null : .array(locations))
    }

    /// On an `include "PATH"` line: the included file's absolute path.
    private func includeTarget(_ params: JSONDocument, _ document: OpenDocument) -> String? {
        guard let position = params[member: "position"]?.position, position.line < document.lines.starts.count else { return nil }
        let start = document.lines.starts[position.line]
        let text = String(decoding: document.bytes[start..<document.lines.end(ofLine: position.line)], as: UTF8.self)
        guard text.hasPrefix("include "), let open = text.firstIndex(of: "\""),
            let close = text[text.index(after: open)...].firstIndex(of: "\"")
        else { return nil }
        let path = String(text[text.index(after: open)..<close])
        return Paths.normalized(Paths.absolute(path, from: Paths.parent(of: document.path)))
    }

    func references(_ document: OpenDocument, _ params: JSONDocument) -> Result<JSONValue, ResponseError> {
        guard let found = name(at: params, in: document) else { return .success(.array([])) }
        let declarations = params[member: "context"]?[member: "includeDeclaration"]?.boolean ?? true
        let locations = occurrences(of: found.name, found.kind, in: document, declarations: declarations).map {
            locationJSON(uri: $0.uri, range: $0.range)
        }
        return .success(.array(locations))
    }

    /// Every place a name is declared (with `declarations`) and used.
    private func occurrences(of name: String, _ kind: SourceIndex.NameKind, in document: OpenDocument, declarations: Bool)
        -> [(uri: String, range: TextRange)]
    {
        let analysis = self.analysis(of: document)
        var ranges: [SourceRange] = []
        if declarations { ranges += analysis.index.definitions(of: name, kind: kind).map(\.range) }
        ranges += analysis.index.uses.filter { $0.name == name && $0.kind == kind }.map(\.range)
        return ranges.sorted { $0.start < $1.start }.map { document.location($0, in: analysis, encoding) }
    }

    func prepareRename(_ document: OpenDocument, _ params: JSONDocument) -> Result<JSONValue, ResponseError> {
        guard let found = name(at: params, in: document) else { return .success(.null) }
        let range = document.location(found.range, in: analysis(of: document), encoding).range
        return .success(.object([("range", range.json), ("placeholder", .string(found.name))]))
    }

    /// Names a template reads as something else: `{{error.message}}` in a
    /// catch, `{{env.HOME}}`.
    static let reservedNames: Set<String> = ["error", "env"]

    func rename(_ document: OpenDocument, _ params: JSONDocument) -> Result<JSONValue, ResponseError> {
        guard let newName = params[member: "newName"]?.string else { return .failure(.invalidParams("newName is missing")) }
        guard let found = name(at: params, in: document) else {
            return .failure(ResponseError(code: ResponseError.requestFailed, message: "there is no label or variable here to rename"))
        }
        let bytes = Array(newName.utf8)
        guard let first = bytes.first, ASCIIByte.isIdentifierStart(first), bytes.allSatisfy(ASCIIByte.isIdentifierContinue),
            !LanguageTable.statementWords.contains(newName), !Self.reservedNames.contains(newName)
        else {
            let what = found.kind == .label ? "label" : "variable"
            return .failure(
                ResponseError(
                    code: ResponseError.requestFailed,
                    message:
                        "'\(newName)' is not a valid \(what) name: a letter or '_', then letters, digits, '_' or '-' (and not a keyword, nor 'error' or 'env')"
                ))
        }
        guard newName == found.name || analysis(of: document).index.definitions(of: newName, kind: found.kind).isEmpty else {
            return .failure(ResponseError(code: ResponseError.requestFailed, message: "'\(newName)' is already declared in this file"))
        }
        var changes: [String: [JSONValue]] = [:]
        var order: [String] = []
        for place in occurrences(of: found.name, found.kind, in: document, declarations: true) {
            if changes[place.uri] == nil { order.append(place.uri) }
            changes[place.uri, default: []].append(textEditJSON(range: place.range, newText: newName))
        }
        return .success(.object([("changes", .object(order.map { ($0, .array(changes[$0] ?? [])) }))]))
    }
}
