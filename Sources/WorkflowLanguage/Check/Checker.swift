import PromiseEngine
import WorkflowModel

/// Checks a parsed workflow beyond its syntax: labels are
/// unique in their scope; `needs` names siblings and forms no cycle;
/// references name steps that exist, have that field, and have surely
/// finished at that point; variables are declared before use; `error.*` is
/// used inside a catch only.
/// See docs/language.md, 'Interpolation' and 'Errors before running'.
struct Checker {
    var diagnostics: DiagnosticBag
    /// Names declared by statements that did not parse: references to them
    /// are not reported as unknown.
    let brokenNames: Set<String>

    /// The first node with each label.
    private var labels: [String: LabelInfo] = [:]
    /// Further nodes with a label already used (in separate foreach bodies).
    private var moreLabels: [String: [LabelInfo]] = [:]
    /// Labels carried by more than one node, for ids in lowering.
    var repeatedLabels: Set<String> { Set(moreLabels.keys) }
    private var scopes = LabelScopes()
    /// The label scope of each foreach body, by the offset of its keyword.
    private var foreachScopes: [Int: Int] = [:]
    private var currentScope = 0
    private var finished = FinishedLabels()
    /// How many distinct labels there are (ids are below this).
    private var labelCount: Int32 = 0
    private var variables = ScopedNames()
    /// Names declared with `secret` (anywhere so far).
    private var secretNames: Set<String> = []
    private var catchDepth = 0
    /// Labels of the nodes being checked (the current one and its groups).
    private var enclosing: [String] = []
    /// Labels of the children of the parallel groups around this point.
    private var parallelSiblings: [Set<String>] = []
    /// The parallel groups around this point, innermost last: what each
    /// lane's needs finished.
    private var lanes: [NeedsReach] = []
    /// Siblings walked from to answer what a lane's needs finished (the
    /// work `needs` costs: linear in a chain).
    private(set) var needsVisits = 0

    /// By label id: the index in `reasons` of why the label stopped being
    /// surely finished (-1: it did not), for the error's note.
    private var forgotten: [Int32] = []
    /// The texts of the reasons `forgotten` points at (`@` stands for the
    /// label), and their indices.
    private var reasons: [String] = []
    private var reasonIndex: [String: Int32] = [:]

    /// The file's bytes, to show ranges.
    private let bytes: [UInt8]

    init(diagnostics: DiagnosticBag, brokenNames: Set<String> = [], bytes: [UInt8] = []) {
        self.diagnostics = diagnostics
        self.brokenNames = brokenNames
        self.bytes = bytes
    }

    /// Whether a label surely finished here: before this point, or in a
    /// sibling the current lane of a parallel group around it needs.
    private mutating func isFinished(_ id: Int32) -> Bool {
        if finished.contains(id) { return true }
        for depth in lanes.indices.reversed() where lanes[depth].waitsFor(id) { return true }
        return false
    }

    /// Pops finished labels back to `height`, remembering why.
    private mutating func forget(to height: Int, because reason: String) {
        let removed = finished.pop(to: height)
        guard !removed.isEmpty else { return }
        remember(removed, because: reason)
    }

    private mutating func remember(_ ids: [Int32], because reason: String) {
        let index: Int32
        if let known = reasonIndex[reason] {
            index = known
        } else {
            index = Int32(reasons.count)
            reasons.append(reason)
            reasonIndex[reason] = index
        }
        for id in ids { forgotten[Int(id)] = index }
    }

    /// The id of a label that collectLabels saw.
    private func id(of label: String) -> Int32? {
        labels[label]?.id
    }

    mutating func check(_ file: SyntaxFile) {
        collectLabels(in: file.body, scope: 0)
        finished.reserve(ids: Int(labelCount))
        forgotten = [Int32](repeating: -1, count: Int(labelCount))
        OnDemandPlaces.check(file.body, into: &diagnostics)
        checkBlock(file.body)
    }

    // MARK: - Labels

    private mutating func collectLabels(in block: SyntaxBlock, scope: Int) {
        for statement in block.statements {
            switch statement {
            case .node(let node): collectLabels(of: node, scope: scope)
            case .catchClause(let clause): collectLabels(in: clause.body, scope: scope)
            case .ensure(let body, _): collectLabels(in: body, scope: scope)
            case .environment, .variable, .dotenv: break
            }
        }
    }

    private mutating func collectLabels(of node: SyntaxNode, scope: Int) {
        if let label = node.label {
            var info = LabelInfo(
                id: labels[label.text]?.id ?? labelCount, name: label.text, range: label.range,
                kind: node.kind.name, captures: [], scope: scope)
            if case .step(let step) = node.kind {
                info.captures = step.captureNames
                if case .file(let operation) = step { info.fileOperation = operation.name }
            }
            guard labels[label.text] != nil else {
                labels[label.text] = info
                labelCount += 1
                return collectLabels(inside: node, scope: scope)
            }
            if let clash = declarations(of: label.text).first(where: { scopes.encloses($0.scope, scope) || scopes.encloses(scope, $0.scope) }) {
                diagnostics.error(
                    "duplicate label '\(label.text)'", at: label.range,
                    notes: [.init("'\(label.text)' is first used here", at: clash.range)])
            }
            moreLabels[label.text, default: []].append(info)
        }
        collectLabels(inside: node, scope: scope)
    }

    private func declarations(of label: String) -> [LabelInfo] {
        guard let first = labels[label] else { return [] }
        return [first] + (moreLabels[label] ?? [])
    }

    private mutating func collectLabels(inside node: SyntaxNode, scope: Int) {
        switch node.kind {
        case .step: break
        case .sequence(let body), .race(let body), .any(let body), .parallel(_, _, let body, _):
            collectLabels(in: body, scope: scope)
        case .foreach(let foreach):
            let inner = scopes.make(inside: scope)
            foreachScopes[node.keyword.start] = inner
            collectLabels(in: foreach.body, scope: inner)
        case .conditional(_, let then, let otherwise):
            collectLabels(in: then, scope: scope)
            if let otherwise { collectLabels(in: otherwise, scope: scope) }
        }
    }

    // MARK: - Blocks and nodes

    private mutating func checkBlock(_ block: SyntaxBlock) {
        let blockStart = finished.height
        let variablesStart = variables.height
        var declaredHere: [String: SourceRange] = [:]
        // A `fail` or `rethrow` fails the chain: what follows it, up to a
        // catch or an ensure, never runs.
        var failedAt: SyntaxNode?
        for statement in block.statements {
            guard !diagnostics.isFull else { return }
            switch statement {
            case .node(let node):
                if let failing = failedAt {
                    diagnostics.warning(
                        "this never runs: the '\(failing.kind.name)' before it always fails the chain", at: node.range.firstLine(in: bytes),
                        notes: [.init("the chain fails here", at: failing.keyword)])
                    failedAt = nil
                }
                let before = finished.height
                checkNode(node)
                // What an `on-demand` node finished is there only in a run
                // that names it.
                if node.attributes.values.onDemand { forget(to: before, because: Self.onDemandReason) }
                if case .step(.fail) = node.kind { failedAt = node }
                if case .step(.rethrow) = node.kind { failedAt = node }
            case .catchClause(let clause):
                failedAt = nil
                // The chain before may have failed anywhere: nothing in it
                // is sure to have finished, inside the catch or after it.
                forget(to: blockStart, because: "the catch between them runs when the chain before it failed, perhaps before '@' ran")
                catchDepth += 1
                checkBlock(clause.body)
                catchDepth -= 1
                forget(to: blockStart, because: "the catch between them runs when the chain before it failed, perhaps before '@' ran")
            case .ensure(let body, _):
                failedAt = nil
                // The ensure runs whatever happened before: it sees nothing
                // of the chain; after it, the chain is as it was, plus the
                // ensure's own steps (it succeeded if the chain goes on).
                let before = finished.pop(to: blockStart)
                if !before.isEmpty {
                    remember(before, because: "an ensure runs even when the chain before it failed, perhaps before '@' ran")
                }
                checkBlock(body)
                let ensured = finished.pop(to: blockStart)
                finished.push(contentsOf: before)
                finished.push(contentsOf: ensured)
            case .environment(_, let value):
                checkTemplate(value)
            case .dotenv:
                break
            case .variable(let variable):
                checkTemplate(variable.value)
                declare(variable.name, in: &declaredHere)
                if variable.isSecret { secretNames.insert(variable.name.text) }
            }
        }
        variables.pop(to: variablesStart)
    }

    /// Why what an `on-demand` node finished is not surely there after it.
    private static let onDemandReason =
        "'@' is on demand, or inside an on-demand group: it runs only when a target names it "
        + "(or a lane that runs needs it)"

    private mutating func declare(_ name: SyntaxName, in declared: inout [String: SourceRange]) {
        if TemplateFunction(rawValue: name.text) != nil {
            diagnostics.error("'\(name.text)' is a function of templates ({{\(name.text)}}); choose another name", at: name.range)
        }
        if let previous = declared[name.text] {
            diagnostics.error(
                "'\(name.text)' is already declared in this block", at: name.range,
                notes: [.init("the first declaration is here", at: previous)])
        }
        declared[name.text] = name.range
        variables.push(name.text)
    }

    private mutating func checkNode(_ node: SyntaxNode) {
        for template in node.attributes.templates { checkTemplate(template) }
        if let label = node.label { enclosing.append(label.text) }
        defer { if node.label != nil { enclosing.removeLast() } }
        let start = finished.height
        switch node.kind {
        case .step(let step):
            for template in step.templates { checkTemplate(template) }
            warnAboutSecretsOnCommandLines(step)
            if node.label == nil, let capture = step.captureNames.first {
                diagnostics.warning(
                    "capture '\(capture)' cannot be used: the step has no label to name it by", at: node.keyword,
                    notes: [.init("give the step a label, as in 'name: \(step.kindName) ...', and use '{{name.\(capture)}}'")])
            }
        case .sequence(let body):
            checkBlock(body)
        case .parallel(_, _, let body, _):
            checkLanes(body, parallel: true, because: "'@' is in another lane of this parallel group; a lane waits only for the lanes it 'needs'")
        case .race(let body), .any(let body):
            checkLanes(
                body, parallel: false,
                because:
                    "'@' is inside a \(node.kind.name): only the first to \(node.kind.name == "race" ? "finish" : "succeed") is waited for; the others are cancelled"
            )
        case .foreach(let foreach):
            for template in foreach.list.templates { checkTemplate(template) }
            let outerScope = currentScope
            currentScope = foreachScopes[node.keyword.start] ?? outerScope
            variables.push(foreach.variable.text)
            checkBlock(foreach.body)
            variables.pop(to: variables.height - 1)
            currentScope = outerScope
            finished.pop(to: start)
        case .conditional(let condition, let then, let otherwise):
            for template in condition.templates { checkTemplate(template) }
            checkBlock(then)
            forget(to: start, because: "'@' is inside a branch of an if, which may not run")
            if let otherwise {
                checkBlock(otherwise)
                forget(to: start, because: "'@' is inside a branch of an if, which may not run")
            }
        }
        if let label = node.label, let id = id(of: label.text) { finished.push(id) }
    }

    /// The body of parallel, race or any: declarations first, then each
    /// child as if the others were not there (unless it `needs` them).
    /// Leaves the labels every child surely finished, for a parallel group.
    private mutating func checkLanes(_ body: SyntaxBlock, parallel: Bool, because reason: String) {
        let variablesStart = variables.height
        var declaredHere: [String: SourceRange] = [:]
        var children: [SyntaxNode] = []
        for statement in body.statements {
            switch statement {
            case .node(let node): children.append(node)
            case .environment(_, let value): checkTemplate(value)
            case .dotenv: break
            case .variable(let variable):
                checkTemplate(variable.value)
                declare(variable.name, in: &declaredHere)
                if variable.isSecret { secretNames.insert(variable.name.text) }
            case .catchClause, .ensure: break
            }
        }
        let needs = parallel ? resolveNeeds(children) : Array(repeating: [], count: children.count)
        let order = parallel ? NeedsGraph.order(needs) : Array(children.indices)
        parallelSiblings.append(Set(children.compactMap(\.label?.text)))
        let start = finished.height
        var provides = Array(repeating: [Int32](), count: children.count)
        // What a child's needs finished is asked of `lanes` when a
        // reference is not finished otherwise (see `isFinished`).
        lanes.append(NeedsReach(needs))
        for index in order {
            lanes[lanes.count - 1].begin(index)
            let childStart = finished.height
            checkNode(children[index])
            provides[index] = Array(finished.ids(since: childStart))
            for id in provides[index] { lanes[lanes.count - 1].record(id, finishedBy: index) }
            forget(to: start, because: reason)
        }
        needsVisits += lanes.removeLast().visits
        parallelSiblings.removeLast()
        if parallel {
            // An `on-demand` lane runs only when a lane that runs needs it.
            let runs = TargetSelection.withNeeds(children.map { !$0.attributes.values.onDemand }, needs)
            for (index, provided) in provides.enumerated() {
                if runs[index] {
                    finished.push(contentsOf: provided)
                } else if !provided.isEmpty {
                    remember(provided, because: Self.onDemandReason)
                }
            }
        }
        variables.pop(to: variablesStart)
    }

    /// Resolves each child's `needs` to sibling indices; reports unknown
    /// names and cycles (after which the needs of a cycle are dropped).
    private mutating func resolveNeeds(_ children: [SyntaxNode]) -> [[Int]] {
        var index: [String: Int] = [:]
        for (position, child) in children.enumerated() {
            if let label = child.label?.text, index[label] == nil { index[label] = position }
        }
        var needs = Array(repeating: [Int](), count: children.count)
        for (position, child) in children.enumerated() {
            for name in child.attributes.needs {
                guard let sibling = index[name.text] else {
                    var notes: [Diagnostic.Note] = []
                    if let elsewhere = labels[name.text] {
                        notes.append(.init("'\(name.text)' is declared here, outside this parallel group", at: elsewhere.range))
                    }
                    let suggestion = Suggestion.phrase(for: name.text, among: index.keys.sorted())
                    diagnostics.error(
                        "'needs' names '\(name.text)', which is not a sibling in this parallel group\(suggestion)", at: name.range, notes: notes)
                    continue
                }
                if sibling == position {
                    diagnostics.error("'\(name.text)' cannot need itself", at: name.range)
                    continue
                }
                if !needs[position].contains(sibling) { needs[position].append(sibling) }
            }
        }
        for cycle in NeedsGraph.cycles(needs) {
            let names = cycle.map { children[$0].label?.text ?? "?" }
            let first = cycle[0]
            let range = children[first].attributes.needs.first { $0.text == names[1 % names.count] }?.range ?? children[first].keyword
            diagnostics.error(
                "'needs' forms a cycle: \((names + [names[0]]).joined(separator: " -> "))", at: range,
                notes: cycle.dropFirst().compactMap { member in
                    children[member].label.map { .init("'\($0.text)' is here", at: $0.range) }
                })
            for member in cycle { needs[member] = [] }
        }
        return needs
    }

    /// A secret in an `sh` command or `exec` argument is in the process's
    /// command line, which every user of the machine can read (`ps`,
    /// /proc/PID/cmdline): masking promise-run's own output cannot hide it.
    private mutating func warnAboutSecretsOnCommandLines(_ step: Step) {
        let templates: [Template]
        switch step {
        case .shell(let command, _): templates = [command]
        case .exec(let arguments, _): templates = arguments
        default: return
        }
        for template in templates {
            for case .expression(let expression) in template.parts {
                guard case .variable(let name) = expression.reference, secretNames.contains(name) else { continue }
                let variable = name.uppercased().map { $0.isLetter || $0.isNumber ? $0 : "_" }
                diagnostics.warning(
                    "the secret '\(name)' is put on the command line, where any user of this machine can read it (ps, /proc)",
                    at: expression.range,
                    notes: [
                        .init(
                            "pass it in the environment instead: 'env \(String(variable)) = \"{{\(name)}}\"' in the step's block, and use $\(String(variable)) in the command"
                        )
                    ])
            }
        }
    }

    // MARK: - References

    private mutating func checkTemplate(_ template: Template) {
        for part in template.parts {
            guard case .expression(let expression) = part else { continue }
            checkExpression(expression)
        }
    }

    private mutating func checkExpression(_ expression: TemplateExpression) {
        switch expression.reference {
        case .environment(_, let fallback):
            if let fallback { checkTemplate(fallback) }
        case .error:
            if catchDepth == 0 {
                diagnostics.error("'error' is only available inside a catch", at: expression.range)
            }
        case .variable(let name):
            checkVariable(name, expression)
        case .step(let label, let field):
            checkStepReference(label, field, expression)
        case .function:
            break
        }
    }

    private mutating func checkVariable(_ name: String, _ expression: TemplateExpression) {
        guard !variables.contains(name) else { return }
        if let info = labels[name] {
            if let field = info.fields.first {
                diagnostics.error("'\(name)' is a step, not a variable; name one of its fields, as in '{{\(name).\(field)}}'", at: expression.range)
            } else {
                diagnostics.error(
                    "'\(name)' is a \(info.kind) \(Parser.stepKeywords.contains(info.kind) ? "step" : "group"), not a variable, and has no fields",
                    at: expression.range)
            }
            return
        }
        guard !brokenNames.contains(name) else { return }
        if name == Parser.repeatIndex {
            diagnostics.error(
                "'{{repeat.index}}' is the iteration's number inside a 'repeat' block, and this is not inside one",
                at: expression.range)
            return
        }
        let suggestion = Suggestion.phrase(for: name, among: variables.entries)
        diagnostics.error(
            "undeclared variable '\(name)'\(suggestion)", at: expression.range,
            notes: suggestion.isEmpty ? [.init("declare it with 'var \(name) = \"...\"' before this point")] : [])
    }

    private mutating func checkStepReference(_ label: String, _ field: StepField, _ expression: TemplateExpression) {
        let candidates = declarations(of: label)
        guard let info = candidates.first(where: { scopes.encloses($0.scope, currentScope) }) else {
            if let inner = candidates.first {
                diagnostics.error(
                    "'\(label)' is inside a foreach body; its values exist only within one iteration", at: expression.range,
                    notes: [.init("'\(label)' is declared here", at: inner.range)])
                return
            }
            if variables.contains(label) {
                diagnostics.error("'\(label)' is a variable; variables have no fields", at: expression.range)
                return
            }
            guard !brokenNames.contains(label) else { return }
            let visible = (Array(labels.values) + moreLabels.values.flatMap { $0 }).filter { scopes.encloses($0.scope, currentScope) }.map(\.name)
            diagnostics.error("unknown step '\(label)'\(Suggestion.phrase(for: label, among: visible))", at: expression.range)
            return
        }
        guard checkField(field, of: info, expression) else { return }
        guard !isFinished(info.id) else { return }
        var notes: [Diagnostic.Note] = []
        if enclosing.contains(label) {
            notes.append(.init("this is inside '\(label)' itself, which is still running"))
        } else if info.range.start > expression.range.start {
            notes.append(.init("'\(label)' runs after this point"))
        } else if parallelSiblings.contains(where: { $0.contains(label) }) {
            notes.append(.init("'\(label)' runs in parallel with this; write 'needs \(label)' in this lane to wait for it"))
        } else if forgotten[Int(info.id)] >= 0 {
            notes.append(.init(reasons[Int(forgotten[Int(info.id)])].replacingPlaceholder(with: label)))
        } else {
            notes.append(
                .init(
                    "a value is there only after its step surely finished: not across a catch, which may have skipped the step, nor out of a race, any or if"
                ))
        }
        notes.append(.init("'\(label)' is declared here", at: info.range))
        diagnostics.error("'\(label)' is not guaranteed to have finished here", at: expression.range, notes: notes)
    }

    /// Reports a field the step does not have; true when the field is fine.
    private mutating func checkField(_ field: StepField, of info: LabelInfo, _ expression: TemplateExpression) -> Bool {
        guard !info.fields.isEmpty else {
            // No fields: a group, or a step kind with none in the language table.
            let isStep = Parser.stepKeywords.contains(info.kind)
            let what = isStep ? "\(info.kind) steps have no fields" : "groups have no fields"
            diagnostics.error("'\(info.name)' is a \(info.kind) \(isStep ? "step" : "group"); \(what)", at: expression.range)
            return false
        }
        let name: String
        switch field {
        case .header: name = "header"
        case .cookie: name = "cookie"
        case .timing: name = "timing"
        case .json: name = "json"
        case .capture(let capture): name = capture
        case .url, .redirects, .version:
            // A capture of that name (on any step) reads as the field.
            if info.captures.contains(field.name) { return true }
            name = field.name
        default: name = field.name
        }
        guard !info.fields.contains(name) else { return true }
        let kind = info.fileOperation.map { "file \($0)" } ?? info.kind
        diagnostics.error(
            "unknown field '\(name)' of \(kind) step '\(info.name)'\(Suggestion.phrase(for: name, among: info.fields))",
            at: expression.range,
            notes: [.init("'\(info.name)' has " + info.fields.map { "'\($0)'" }.joined(separator: ", "))])
        return false
    }
}

extension String {
    /// The text with each `@` replaced by `value`.
    func replacingPlaceholder(with value: String) -> String {
        var result = ""
        for character in self {
            if character == "@" { result += value } else { result.append(character) }
        }
        return result
    }
}

extension SourceRange {
    /// The range cut at its first line break.
    func firstLine(in bytes: [UInt8]) -> SourceRange {
        var end = start
        while end < self.end, end < bytes.count, bytes[end] != 0x0A, bytes[end] != 0x0D { end += 1 }
        return SourceRange(start: start, end: end)
    }
}
