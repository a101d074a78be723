import WorkflowModel

/// Where `on-demand` may stand: on a step or group a target can
/// name. Not inside a `foreach` body (its steps run once per item) nor
/// inside a `catch` or `ensure` block (it runs as part of its chain); that
/// it has a label is the parser's check (`requireLabel`).
/// See docs/language.md, 'Incremental steps'.
enum OnDemandPlaces {
    /// Inside a foreach (or repeat) body.
    static let insideForeach =
        "'on-demand' cannot be inside a foreach body: its steps run once per item and no target can name them; "
        + "put 'on-demand' in the block of the foreach itself (labelled), or move this out of the body"
    /// Inside a catch or ensure block.
    static let insideClause =
        "'on-demand' cannot be inside a catch or ensure block: it runs as part of its chain and no target can name it; "
        + "put 'on-demand' on a step or group of the chain, or remove it"

    /// Reports every `on-demand` written where no target can name it.
    static func check(_ block: SyntaxBlock, into diagnostics: inout DiagnosticBag) {
        walk(block, inside: nil, &diagnostics)
    }

    /// Why no target reaches here, and the keyword that says so.
    private typealias Place = (message: String, note: Diagnostic.Note)

    private static func walk(_ block: SyntaxBlock, inside: Place?, _ diagnostics: inout DiagnosticBag) {
        for statement in block.statements {
            switch statement {
            case .node(let node):
                walk(node, inside: inside, &diagnostics)
            case .catchClause(let clause):
                walk(clause.body, inside: inside ?? (insideClause, .init("the catch is here", at: clause.keyword)), &diagnostics)
            case .ensure(let body, let keyword):
                walk(body, inside: inside ?? (insideClause, .init("the ensure is here", at: keyword)), &diagnostics)
            case .environment, .variable, .dotenv:
                break
            }
        }
    }

    private static func walk(_ node: SyntaxNode, inside: Place?, _ diagnostics: inout DiagnosticBag) {
        if let inside, let range = node.attributes.onDemandRange {
            diagnostics.error(inside.message, at: range, notes: [inside.note])
        }
        switch node.kind {
        case .step:
            break
        case .sequence(let body), .race(let body), .any(let body), .parallel(_, _, let body, _):
            walk(body, inside: inside, &diagnostics)
        case .foreach(let foreach):
            walk(foreach.body, inside: inside ?? (insideForeach, .init("the \(node.kind.name) is here", at: node.keyword)), &diagnostics)
        case .conditional(_, let then, let otherwise):
            walk(then, inside: inside, &diagnostics)
            if let otherwise { walk(otherwise, inside: inside, &diagnostics) }
        }
    }
}
