import PromiseEngine
package import WorkflowModel

/// What an editor needs to know of a workflow's names: where
/// each label and variable is declared, where each is used (`needs`,
/// `{{label.field}}`, `{{name}}`), the outline of steps and groups, and
/// the blocks that fold. Built from the same parse `check` does, also for
/// a file with errors (what parsed is indexed). Ranges are byte offsets in
/// the source the parser read (includes expanded).
/// See docs/language.md, 'Editors'.
package struct SourceIndex: Sendable {
    package enum NameKind: String, Sendable {
        /// A step's or group's label.
        case label
        /// `var`, `secret`, or a `foreach` item.
        case variable
    }

    /// Where a name is declared.
    package struct Definition: Sendable {
        package var name: String
        package var kind: NameKind
        /// The name itself.
        package var range: SourceRange
        /// The whole statement that declares it.
        package var extent: SourceRange
        /// For a label: the step or group kind (`sh`, `parallel`); for a
        /// variable: `var`, `secret` or `foreach`.
        package var detail: String
        /// For a label: its captures; for a `var`: its value as written.
        package var captures: [String] = []
        package var value: String?
        /// For a `file` step's label: its operation (`read` has `content`).
        package var fileOperation: String?
    }

    /// Where a name is used.
    package struct Use: Sendable {
        package var name: String
        package var kind: NameKind
        package var range: SourceRange
    }

    /// A step or group in the outline.
    package struct OutlineItem: Sendable {
        package var name: String
        package var detail: String
        package var isGroup: Bool
        package var extent: SourceRange
        package var selection: SourceRange
        package var children: [OutlineItem]
    }

    package var definitions: [Definition] = []
    package var uses: [Use] = []
    package var outline: [OutlineItem] = []
    /// Every `{ ... }` block, for folding.
    package var blocks: [SourceRange] = []

    /// The definitions of a name of a kind.
    package func definitions(of name: String, kind: NameKind) -> [Definition] {
        definitions.filter { $0.name == name && $0.kind == kind }
    }

    /// The name declared or used at `offset`, if any.
    package func name(at offset: Int) -> (name: String, kind: NameKind, range: SourceRange)? {
        for definition in definitions where definition.range.start <= offset && offset <= definition.range.end {
            return (definition.name, definition.kind, definition.range)
        }
        for use in uses where use.range.start <= offset && offset <= use.range.end {
            return (use.name, use.kind, use.range)
        }
        return nil
    }
}

/// What the language server reads of a file: its parse and check (the
/// diagnostics `check` gives) and its index, without lowering.
package struct LanguageAnalysis: Sendable {
    /// The source as parsed (includes expanded; `segments` say where each
    /// byte came from).
    package var source: SourceFile
    package var diagnostics: [Diagnostic]
    package var index: SourceIndex
}

extension WorkflowCompiler {
    /// Parses and checks `original` as `check` does (with its look at the
    /// files: `sources` that match nothing, relative to `currentDirectory`),
    /// and indexes it. An included file's text in `overlay` (by normalized
    /// path) wins over the disk's.
    package static func analyze(
        _ original: SourceFile, errorLimit: Int = DiagnosticBag.defaultLimit,
        currentDirectory: String = "/", overlay: [String: [UInt8]] = [:]
    ) -> LanguageAnalysis {
        let (source, file, diagnostics, repeatedLabels) = parseAndCheck(original, errorLimit: errorLimit, overlay: overlay)
        var builder = IndexBuilder(bytes: source.bytes)
        builder.index.outline = builder.block(file.body, isFile: true)
        var found = diagnostics.diagnostics
        if !diagnostics.hasErrors {
            let workflow = Lowering(source: source, repeatedLabels: repeatedLabels).lower(consume file)
            let warnings = CompilationResult(source: source, workflow: workflow, diagnostics: found)
                .unmatchedSourcesWarnings(currentDirectory: currentDirectory)
            if !warnings.isEmpty {
                found += warnings
                found.sort { ($0.range?.start ?? 0) < ($1.range?.start ?? 0) }
            }
        }
        return LanguageAnalysis(source: source, diagnostics: found, index: builder.index)
    }
}

/// Walks the syntax tree into a `SourceIndex`.
private struct IndexBuilder {
    let bytes: [UInt8]
    var index = SourceIndex()

    /// The items of the outline for a block's statements.
    @discardableResult
    mutating func block(_ block: SyntaxBlock, isFile: Bool = false) -> [SourceIndex.OutlineItem] {
        if !isFile { index.blocks.append(block.range) }
        var items: [SourceIndex.OutlineItem] = []
        for statement in block.statements {
            switch statement {
            case .node(let node):
                items.append(self.node(node))
            case .catchClause(let clause):
                let children = self.block(clause.body)
                items.append(
                    SourceIndex.OutlineItem(
                        name: "catch", detail: clause.kinds.map(\.rawValue).joined(separator: " "),
                        isGroup: true, extent: clause.keyword.extended(to: clause.body.range),
                        selection: clause.keyword, children: children))
            case .ensure(let body, let keyword):
                let children = self.block(body)
                items.append(
                    SourceIndex.OutlineItem(
                        name: "ensure", detail: "", isGroup: true, extent: keyword.extended(to: body.range),
                        selection: keyword, children: children))
            case .environment(_, let value):
                templates([value])
            case .variable(let variable):
                templates([variable.value])
                let keyword = variable.isSecret ? "secret" : "var"
                index.definitions.append(
                    SourceIndex.Definition(
                        name: variable.name.text, kind: .variable, range: variable.name.range, extent: variable.name.range,
                        detail: keyword, value: variable.isSecret ? nil : variable.value.literalValue))
                items.append(
                    SourceIndex.OutlineItem(
                        name: variable.name.text, detail: keyword, isGroup: false,
                        extent: variable.name.range, selection: variable.name.range, children: []))
            case .dotenv:
                break
            }
        }
        return items
    }

    mutating func node(_ node: SyntaxNode) -> SourceIndex.OutlineItem {
        let kind = node.kind.name
        if let label = node.label {
            var definition = SourceIndex.Definition(name: label.text, kind: .label, range: label.range, extent: node.range, detail: kind)
            if case .step(let step) = node.kind {
                definition.captures = step.captureNames
                if case .file(let operation) = step { definition.fileOperation = operation.name }
            }
            index.definitions.append(definition)
        }
        // `needs a b` and a threshold's `latency of a` name labels.
        for name in node.attributes.needs + node.attributes.thresholdLabels {
            index.uses.append(SourceIndex.Use(name: name.text, kind: .label, range: name.range))
        }
        templates(node.attributes.templates)
        var children: [SourceIndex.OutlineItem] = []
        var detail = kind
        switch node.kind {
        case .step(let step):
            templates(step.templates)
            detail = kind
        case .sequence(let body), .race(let body), .any(let body):
            children = block(body)
        case .parallel(_, _, let body, _):
            children = block(body)
        case .foreach(let foreach):
            templates(foreach.list.templates)
            index.definitions.append(
                SourceIndex.Definition(
                    name: foreach.variable.text, kind: .variable, range: foreach.variable.range,
                    extent: node.range, detail: "foreach"))
            children = block(foreach.body)
            detail = "foreach \(foreach.variable.text)"
        case .conditional(let condition, let then, let otherwise):
            templates(condition.templates)
            children = block(then) + (otherwise.map { block($0) } ?? [])
        }
        let isGroup: Bool
        if case .step = node.kind { isGroup = false } else { isGroup = true }
        return SourceIndex.OutlineItem(
            name: node.label?.text ?? kind, detail: detail, isGroup: isGroup, extent: node.range,
            selection: node.label?.range ?? node.keyword, children: children)
    }

    /// The names `{{...}}` uses: a label before its field, a variable.
    mutating func templates(_ list: [Template]) {
        for template in list {
            for part in template.parts {
                guard case .expression(let expression) = part else { continue }
                let name: String
                let kind: SourceIndex.NameKind
                switch expression.reference {
                case .step(let label, _): (name, kind) = (label, .label)
                case .variable(let variable): (name, kind) = (variable, .variable)
                case .environment(_, let fallback):
                    if let fallback { self.templates([fallback]) }
                    continue
                case .error, .function: continue
                }
                // The range may or may not include the braces.
                var start = expression.range.start
                while start < expression.range.end, start < bytes.count,
                    bytes[start] == 0x20 || bytes[start] == 0x09 || bytes[start] == UInt8(ascii: "{")
                { start += 1 }
                let end = start + name.utf8.count
                guard end <= bytes.count, bytes[start..<end].elementsEqual(name.utf8) else { continue }
                index.uses.append(SourceIndex.Use(name: name, kind: kind, range: SourceRange(start: start, end: end)))
            }
        }
    }
}
