import JSONRPC
import WorkflowModel
package import JSON

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
              line >= 0, character >= 0 else { return nil }
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
    case error = 1, warning = 2, information = 3, hint = 4
}

/// LSP's `CompletionItemKind` (the ones used).
package enum CompletionKind: Int {
    case text = 1, method = 2, function = 3, field = 5, variable = 6, module = 9, property = 10, keyword = 14, snippet = 15, reference = 18
}

/// LSP's `SymbolKind` (the ones used).
package enum SymbolKindCode: Int {
    case file = 1, module = 2, namespace = 3, function = 12, variable = 13, event = 24, `operator` = 25
}
