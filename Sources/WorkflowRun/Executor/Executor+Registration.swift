import PromiseEngine
import WorkflowModel

extension WorkflowExecutor {
    /// Registers every step and group of `block` so that each is reported
    /// even if it never runs. A foreach body is registered once without
    /// iteration numbers until its list is known.
    func registerSteps(in block: Block, key: [Int], suffix: String, group: String? = nil) {
        forEachNode(in: block, key: key, suffix: suffix, group: group) { node, id, key, parent in
            switch node.kind {
            case .step(let step):
                recorder.register(
                    id: id, label: node.label, kind: step.kindName, summary: summary(of: node, step),
                    key: key, group: parent,
                    executor: node.isProcessStep ? node.attributes.placement.executor ?? .local : nil)
            case .group(let group):
                recorder.registerGroup(id: id, label: node.label, kind: group.kindName, parent: parent, key: key)
            }
        }
    }

    /// A step's summary, made once per step of the workflow: every
    /// iteration's record shares the text.
    func summary(of node: Node, _ step: Step) -> String {
        if let known = summaries.withLock({ $0[node.id] }) { return known }
        let made = StepSummary.describe(step)
        summaries.withLock { $0[node.id] = made }
        return made
    }

    func unregisterSteps(in block: Block, suffix: String) {
        forEachNode(in: block, key: [], suffix: suffix, group: nil) { _, id, _, _ in recorder.unregister(id: id) }
    }

    /// Marks the steps and groups of a statement that will not run as
    /// skipped (`reason`: why, when it is not a failure before them).
    func skipSteps(of node: Node, in context: ExecutionContext, reason: String? = nil) {
        var ids: [String] = []
        forEachNode(in: node, key: [], suffix: context.suffix, group: nil) { _, id, _, _ in ids.append(id) }
        recorder.skip(ids, reason: reason)
    }

    func skipSteps(of block: Block, in context: ExecutionContext, reason: String? = nil) {
        var ids: [String] = []
        forEachNode(in: block, key: [], suffix: context.suffix, group: nil) { _, id, _, _ in ids.append(id) }
        recorder.skip(ids, reason: reason)
    }

    /// Every step and group below `block`, with its report id, sort key and
    /// the id of the group around it. The keys follow the positions the
    /// executor passes down (`ExecutionContext.key`).
    func forEachNode(
        in block: Block, key: [Int], suffix: String, group: String?,
        _ body: (Node, String, [Int], String?) -> Void
    ) {
        for (index, statement) in block.statements.enumerated() {
            switch statement {
            case .node(let node): forEachNode(in: node, key: key + [index], suffix: suffix, group: group, body)
            case .catch(let clause): forEachNode(in: clause.body, key: key + [index], suffix: suffix, group: group, body)
            case .ensure(let ensured): forEachNode(in: ensured, key: key + [index], suffix: suffix, group: group, body)
            case .environment, .variable, .dotenv: break
            }
        }
    }

    func forEachNode(
        in node: Node, key: [Int], suffix: String, group: String?,
        _ body: (Node, String, [Int], String?) -> Void
    ) {
        let id = node.id + suffix
        switch node.kind {
        case .step:
            body(node, id, key, group)
        case .group(let kind):
            body(node, id, key, group)
            switch kind {
            case .sequence(let block):
                forEachNode(in: block, key: key, suffix: suffix, group: id, body)
            case .parallel(let parallel):
                for (index, child) in parallel.lanes.children.enumerated() {
                    forEachNode(in: child, key: key + [index], suffix: suffix, group: id, body)
                }
            case .race(let lanes), .any(let lanes):
                for (index, child) in lanes.children.enumerated() {
                    forEachNode(in: child, key: key + [index], suffix: suffix, group: id, body)
                }
            case .foreach(let foreach):
                forEachNode(in: foreach.body, key: key + [-1], suffix: suffix, group: id, body)
            case .conditional(let conditional):
                forEachNode(in: conditional.then, key: key + [0], suffix: suffix, group: id, body)
                if let otherwise = conditional.otherwise {
                    forEachNode(in: otherwise, key: key + [1], suffix: suffix, group: id, body)
                }
            }
        }
    }
}
