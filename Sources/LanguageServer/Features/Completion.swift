import JSON
import JSONRPC
import RunnerSystem
import WorkflowLanguage
import WorkflowModel

/// Completion: statements, step kinds, the attributes the step
/// at the cursor takes, labels after `needs`, predicates after an
/// expectation's subject and a certificate's fields, and after `{{`:
/// variables, labels and their fields, filters. Every word and its doc comes from
/// the language table.
/// See docs/language.md, 'Editors'.
extension LanguageServer {
    func completion(_ document: OpenDocument, _ params: JSONDocument) -> Result<JSONValue, ResponseError> {
        guard let position = params[member: "position"]?.position else { return .failure(.invalidParams("position is missing")) }
        let offset = document.lines.offset(of: position, encoding)
        let context = CompletionContext.at(offset, in: document.bytes, lines: document.lines)
        var items: [JSONValue] = []
        func add(_ words: [LanguageTable.Word], _ kind: CompletionKind) {
            for word in words { items.append(Self.item(word.name, kind, word.doc)) }
        }
        let index = analysis(of: document).index
        func labels() {
            var seen: Set<String> = []
            for definition in index.definitions where definition.kind == .label && seen.insert(definition.name).inserted {
                items.append(Self.item(definition.name, .reference, "\(definition.detail) step" + (definition.detail.isEmpty ? "" : "")))
            }
        }
        switch context {
        case .statement(let owner, let afterLabel):
            let stepKinds = LanguageTable.stepKinds.map(\.name)
            if let owner, stepKinds.contains(owner), !afterLabel {
                let docs = LanguageTable.attributes
                for name in LanguageTable.attributes(for: owner) {
                    items.append(Self.item(name, .property, docs.first { $0.name == name }?.doc ?? ""))
                }
            } else {
                add(LanguageTable.stepKinds, .keyword)
                add(LanguageTable.groupKinds, .keyword)
                if !afterLabel {
                    add(LanguageTable.declarations, .keyword)
                    if owner != nil {
                        let docs = LanguageTable.attributes
                        for name in LanguageTable.attributes(for: "group") {
                            items.append(Self.item(name, .property, docs.first { $0.name == name }?.doc ?? ""))
                        }
                    }
                }
            }
        case .needs:
            labels()
        case .expectation(let inGroup):
            add(inGroup ? LanguageTable.thresholdSubjects : LanguageTable.expectationSubjects, .keyword)
        case .stepExpectation(let kind):
            add(LanguageTable.expectationSubjects(for: kind), .keyword)
        case .captureSource(let kind):
            for source in LanguageTable.captureSources where source.takenBy.contains(kind) {
                items.append(Self.item(source.name, .keyword, source.doc))
            }
        case .predicate:
            add(LanguageTable.valuePredicates, .function)
            add(LanguageTable.textPredicates, .keyword)
        case .certificateField:
            add(LanguageTable.certificateFields, .field)
        case .catchKind:
            add(LanguageTable.catchKinds, .keyword)
        case .retryOption:
            add(LanguageTable.retryOptions, .keyword)
        case .list:
            add(LanguageTable.listFunctions, .function)
            var seen: Set<String> = []
            for definition in index.definitions where definition.kind == .variable && seen.insert(definition.name).inserted {
                items.append(Self.item(definition.name, .variable, definition.detail))
            }
        case .parallelOption:
            add(LanguageTable.parallelOptions, .keyword)
        case .fileOperation:
            add(LanguageTable.fileOperations, .keyword)
        case .httpMethod:
            for method in ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"] {
                items.append(Self.item(method, .keyword, "the HTTP method"))
            }
        case .filter:
            add(LanguageTable.filters, .function)
        case .expression(let typed):
            if let dot = typed.firstIndex(of: ".") {
                let head = String(typed[..<dot])
                // `r.header.NAME`, `r.json.PATH`: names of the response, not fields.
                if typed[typed.index(after: dot)...].contains(".") { break }
                switch head {
                case "env":
                    for name in ProcessEnvironment.current().keys.sorted() { items.append(Self.item(name, .variable, "an environment variable")) }
                case "error":
                    for field in ErrorField.allCases { items.append(Self.item(field.rawValue, .field, "of the failure a catch handles")) }
                default:
                    for definition in index.definitions(of: head, kind: .label).prefix(1) {
                        add(LanguageTable.fields(of: definition.detail, fileOperation: definition.fileOperation), .field)
                        for capture in definition.captures { items.append(Self.item(capture, .field, "a capture of \(head)")) }
                    }
                }
            } else {
                var seen: Set<String> = []
                for definition in index.definitions where definition.kind == .variable && seen.insert(definition.name).inserted {
                    items.append(Self.item(definition.name, .variable, definition.detail))
                }
                labels()
                add(LanguageTable.templateFunctions, .function)
                items.append(Self.item("env", .module, "promise-run's environment: env.NAME"))
                items.append(Self.item("error", .module, "inside a catch: the failure it handles (error.message, error.step, ...)"))
            }
        case .none:
            break
        }
        // Each item replaces the whole word at the cursor, hyphens
        // included (`allow-` gives `allow-failure`).
        let span = Self.wordSpan(around: offset, in: document.bytes)
        let word = document.lines.range(span.lowerBound, span.upperBound, encoding)
        items = items.map { item in
            guard case .object(var members) = item, case .string(let label)? = members.first(where: { $0.0 == "label" })?.1 else { return item }
            members.append(("textEdit", textEditJSON(range: word, newText: label)))
            return .object(members)
        }
        return .success(.object([("isIncomplete", .bool(false)), ("items", .array(items))]))
    }

    static func item(_ label: String, _ kind: CompletionKind, _ doc: String) -> JSONValue {
        var members: [(String, JSONValue)] = [("label", .string(label)), ("kind", .integer(kind.rawValue))]
        if !doc.isEmpty { members.append(("detail", .string(doc))) }
        return .object(members)
    }
}
