package import JSON
import JSONRPC
import WorkflowModel

// Reading the LSP's parameters out of JSON, and writing its results: only
// the fields this server reads and writes (LSP 3.17).

extension JSONDocument {
    /// A member of an object.
    package subscript(member key: String) -> JSONDocument? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    package var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    package var integer: Int? {
        if case .number(let number) = self { return number.integerValue }
        return nil
    }

    package var array: [JSONDocument]? {
        if case .array(let items) = self { return items }
        return nil
    }

    package var boolean: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// `{line, character}`.
    package var position: TextPosition? {
        guard let line = self[member: "line"]?.integer, let character = self[member: "character"]?.integer,
            line >= 0, character >= 0
        else { return nil }
        return TextPosition(line: line, character: character)
    }

    /// `{start, end}`.
    package var range: TextRange? {
        guard let start = self[member: "start"]?.position, let end = self[member: "end"]?.position else { return nil }
        return TextRange(start: start, end: end)
    }

    /// `textDocument.uri` of the parameters.
    package var documentURI: String? { self[member: "textDocument"]?[member: "uri"]?.string }
}

extension TextPosition {
    package var json: JSONValue { .object([("line", .integer(line)), ("character", .integer(character))]) }
}

extension TextRange {
    package var json: JSONValue { .object([("start", start.json), ("end", end.json)]) }
}

/// `Location`.
package func locationJSON(uri: String, range: TextRange) -> JSONValue {
    .object([("uri", .string(uri)), ("range", range.json)])
}

/// `TextEdit`.
package func textEditJSON(range: TextRange, newText: String) -> JSONValue {
    .object([("range", range.json), ("newText", .string(newText))])
}

/// LSP's `DiagnosticSeverity`.
package enum DiagnosticSeverityCode: Int {
    case error = 1
    case warning = 2
    case information = 3
    case hint = 4
}

/// LSP's `CompletionItemKind` (the ones used).
package enum CompletionKind: Int {
    case text = 1
    case method = 2
    case function = 3
    case field = 5
    case variable = 6
    case module = 9
    case property = 10
    case keyword = 14
    case snippet = 15
    case reference = 18
}

/// LSP's `SymbolKind` (the ones used).
package enum SymbolKindCode: Int {
    case file = 1
    case module = 2
    case namespace = 3
    case function = 12
    case variable = 13
    case event = 24
    case `operator` = 25
}
