extension WorkflowExecutor {
    /// Registers every step of `block` so that each is reported even if it
    /// never runs. A foreach body is registered once without iteration
    /// numbers until its list is known.
    func registerSteps(in block: Block, key: [Int], suffix: String) {
        forEachStep(in: block, key: key, suffix: suffix) { node, step, id, key in
            recorder.register(id: id, label: node.label, kind: step.kindName, summary: summary(of: node, step), key: key)
        }
    }

    /// A step's summary, made once per step of the workflow: every
    /// iteration's record shares the text.
    private func summary(of node: Node, _ step: Step) -> String {
        if let known = summaries.withLock({ $0[node.id] }) { return known }
        let made = StepSummary.describe(step)
        summaries.withLock { $0[node.id] = made }
        return made
    }

    func unregisterSteps(in block: Block, suffix: String) {
        forEachStep(in: block, key: [], suffix: suffix) { _, _, id, _ in recorder.unregister(id: id) }
    }

    /// Marks the steps of a statement that will not run as skipped.
    func skipSteps(of node: Node, in context: ExecutionContext) {
        var ids: [String] = []
        forEachStep(in: node, key: [], suffix: context.suffix) { _, _, id, _ in ids.append(id) }
        recorder.skip(ids)
    }

    func skipSteps(of block: Block, in context: ExecutionContext) {
        var ids: [String] = []
        forEachStep(in: block, key: [], suffix: context.suffix) { _, _, id, _ in ids.append(id) }
        recorder.skip(ids)
    }

    /// Every step below `block`, with its report id and sort key. The keys
    /// follow the positions the executor passes down (`ExecutionContext.key`).
    func forEachStep(in block: Block, key: [Int], suffix: String,
                     _ body: (Node, Step, String, [Int]) -> Void) {
        for (index, statement) in block.statements.enumerated() {
            switch statement {
            case .node(let node): forEachStep(in: node, key: key + [index], suffix: suffix, body)
            case .catch(let clause): forEachStep(in: clause.body, key: key + [index], suffix: suffix, body)
            case .ensure(let ensured): forEachStep(in: ensured, key: key + [index], suffix: suffix, body)
            case .environment, .variable: break
            }
        }
    }

    func forEachStep(in node: Node, key: [Int], suffix: String, _ body: (Node, Step, String, [Int]) -> Void) {
        switch node.kind {
        case .step(let step):
            body(node, step, node.id + suffix, key)
        case .group(let group):
            switch group {
            case .sequence(let block):
                forEachStep(in: block, key: key, suffix: suffix, body)
            case .parallel(let parallel):
                for (index, child) in parallel.lanes.children.enumerated() {
                    forEachStep(in: child, key: key + [index], suffix: suffix, body)
                }
            case .race(let lanes), .any(let lanes):
                for (index, child) in lanes.children.enumerated() {
                    forEachStep(in: child, key: key + [index], suffix: suffix, body)
                }
            case .foreach(let foreach):
                forEachStep(in: foreach.body, key: key + [-1], suffix: suffix, body)
            case .conditional(let conditional):
                forEachStep(in: conditional.then, key: key + [0], suffix: suffix, body)
                if let otherwise = conditional.otherwise {
                    forEachStep(in: otherwise, key: key + [1], suffix: suffix, body)
                }
            }
        }
    }
}
