import JSON
import JSONRPC
import WorkflowLanguage
import WorkflowModel

/// Document symbols (the outline of labels, groups and variables),
/// folding ranges (every block), and formatting (`fmt`'s layout).
extension LanguageServer {
    func documentSymbols(_ document: OpenDocument) -> JSONValue {
        let analysis = self.analysis(of: document)
        func symbols(_ items: [SourceIndex.OutlineItem]) -> [JSONValue] {
            items.compactMap { item -> JSONValue? in
                // Steps brought in by an include belong to that file.
                guard document.documentOffset(item.extent.start, in: analysis) != nil else { return nil }
                let extent = document.location(item.extent, in: analysis, encoding).range
                var selection = document.location(item.selection, in: analysis, encoding).range
                if selection.start.line < extent.start.line || selection.end.line > extent.end.line { selection = extent }
                let kind: SymbolKindCode =
                    item.detail == "var" || item.detail == "secret"
                    ? .variable
                    : item.isGroup ? .namespace : .function
                var members: [(String, JSONValue)] = [
                    ("name", .string(item.name)), ("detail", .string(item.detail)), ("kind", .integer(kind.rawValue)),
                    ("range", extent.json), ("selectionRange", selection.json),
                ]
                let children = symbols(item.children)
                if !children.isEmpty { members.append(("children", .array(children))) }
                return .object(members)
            }
        }
        return .array(symbols(analysis.index.outline))
    }

    func foldingRanges(_ document: OpenDocument) -> JSONValue {
        let analysis = self.analysis(of: document)
        var ranges: [JSONValue] = []
        var seen: Set<Int> = []
        func fold(_ range: SourceRange) {
            guard let start = document.documentOffset(range.start, in: analysis),
                let end = document.documentOffset(max(range.start, range.end - 1), in: analysis)
            else { return }
            let first = document.lines.line(of: start)
            let last = document.lines.line(of: end)
            // The closing brace's line stays visible.
            guard last - 1 > first, seen.insert(first).inserted else { return }
            ranges.append(.object([("startLine", .integer(first)), ("endLine", .integer(last - 1))]))
        }
        func walk(_ items: [SourceIndex.OutlineItem]) {
            for item in items {
                fold(item.extent)
                walk(item.children)
            }
        }
        // Blocks first: an `if`'s fold ends before its `} else {`, which
        // starts a fold of its own (the statement's extent would swallow both).
        for block in analysis.index.blocks { fold(block) }
        walk(analysis.index.outline)
        return .array(ranges)
    }

    func formatting(_ document: OpenDocument) -> JSONValue {
        guard let formatted = WorkflowFormatter.format(SourceFile(path: document.path, bytes: document.bytes)) else { return .array([]) }
        let bytes = Array(formatted.utf8)
        guard bytes != document.bytes else { return .array([]) }
        let whole = document.lines.range(0, document.bytes.count, encoding)
        return .array([textEditJSON(range: whole, newText: formatted)])
    }
}
