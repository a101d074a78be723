import PromiseEngine

/// `promise-run FILE TARGET...` (spec §12): which parts of the workflow
/// run. A target runs whole, with the statements before it in every chain
/// that encloses it (run whole) and, in a `parallel`, the siblings it
/// `needs`, in turn. Other lanes of the groups that enclose a target, and
/// the statements after it, do not run: they are reported skipped, `not
/// selected`. `catch` and `ensure` run as usual.
///
/// The executor and the renderers (`graph`, `--dry-run`) both ask this
/// type, so what is shown is what runs.
package struct TargetSelection: Sendable, Hashable {
    /// The labels asked for.
    package let targets: [String]
    /// Node ids of the targets.
    package let chosen: Set<String>
    /// Node ids of the groups that enclose a target (cut inside).
    package let enclosing: Set<String>

    /// The reason a step that did not run because of targets is given.
    package static let notSelected = "not selected"

    /// The selection for `targets`, or errors saying what is wrong with
    /// each label that cannot be a target ("did you mean").
    package static func make(_ workflow: Workflow, targets: [String]) -> Result<TargetSelection, TargetErrors> {
        var found: [String: [(node: Node, ancestors: [String], where: Place)]] = [:]
        walk(workflow.body, ancestors: [], place: .chain) { node, ancestors, place in
            if let label = node.label { found[label, default: []].append((node, ancestors, place)) }
        }
        var chosen: Set<String> = []
        var enclosing: Set<String> = []
        var problems: [String] = []
        for target in targets {
            guard let matches = found[target] else {
                let hint = Suggestion.phrase(for: target, among: found.keys.sorted())
                problems.append("no step or group is labelled '\(target)'\(hint) (promise-run list FILE shows the labels)")
                continue
            }
            guard matches.count == 1, let match = matches.first else {
                let lines = matches.map { "\($0.node.location.line)" }.joined(separator: ", ")
                problems.append("'\(target)' labels \(matches.count) steps or groups (lines \(lines)); a target must name one")
                continue
            }
            switch match.where {
            case .foreach:
                problems.append("'\(target)' is inside a foreach body (it runs once per item); name the foreach instead")
                continue
            case .clause:
                problems.append("'\(target)' is inside a catch or ensure block, which runs as part of its chain; name a step or group of the chain instead")
                continue
            case .chain:
                break
            }
            chosen.insert(match.node.id)
            enclosing.formUnion(match.ancestors)
        }
        guard problems.isEmpty else { return .failure(TargetErrors(messages: problems)) }
        return .success(TargetSelection(targets: targets, chosen: chosen, enclosing: enclosing))
    }

    /// Whether `node` is a target (it runs whole).
    package func isTarget(_ node: Node) -> Bool { chosen.contains(node.id) }

    /// Whether a target is inside `node`, which then runs cut down.
    package func encloses(_ node: Node) -> Bool { enclosing.contains(node.id) }

    /// The index of the last statement of `block` that is or holds a
    /// target; nil when none does (then nothing of the block is selected).
    package func lastSelected(in block: Block) -> Int? {
        block.statements.lastIndex { statement in
            guard case .node(let node) = statement else { return false }
            return isTarget(node) || encloses(node)
        }
    }

    /// Of a group's lanes, which run, and whether each runs cut down (it
    /// holds a target) or whole (it is one, or a target needs it).
    /// `dependencies[i]` lists the lanes lane `i` needs.
    package func lanes(_ children: [Node], dependencies: [[Int]]) -> [(index: Int, cut: Bool)] {
        var selected: [Int: Bool] = [:]
        var pending: [Int] = []
        for (index, child) in children.enumerated() where isTarget(child) || encloses(child) {
            selected[index] = !isTarget(child) && encloses(child)
            pending.append(index)
        }
        // The siblings they need, in turn, run whole.
        while let index = pending.popLast() {
            guard index < dependencies.count else { continue }
            for needed in dependencies[index] where selected[needed] == nil {
                selected[needed] = false
                pending.append(needed)
            }
        }
        return selected.keys.sorted().map { ($0, selected[$0]!) }
    }

    /// The workflow as it runs with this selection: what is not selected
    /// left out (for `graph` and `--dry-run`).
    package func cut(_ workflow: Workflow) -> Workflow {
        var cut = workflow
        let placed = workflow.variablePlacement
        cut.body = self.cut(workflow.body)
        // Top-level variables after the last selected statement do not run.
        if let last = lastSelected(in: workflow.body) {
            let kept = workflow.variables.indices.filter { placed[$0] <= last }
            cut.variables = kept.map { workflow.variables[$0] }
            cut.variablePlacement = kept.map { min(placed[$0], cut.body.statements.count) }
        }
        return cut
    }

    package func cut(_ block: Block) -> Block {
        guard let last = lastSelected(in: block) else {
            return Block(statements: block.statements.filter {
                if case .node = $0 { return false }
                return true
            })
        }
        var statements: [Statement] = []
        for (index, statement) in block.statements.enumerated() {
            switch statement {
            case .node(let node):
                if index < last || (index == last && isTarget(node)) {
                    statements.append(statement)
                } else if index == last {
                    statements.append(.node(cut(node)))
                }
            case .catch, .ensure:
                statements.append(statement)
            case .environment, .variable, .dotenv:
                if index < last { statements.append(statement) }
            }
        }
        return Block(statements: statements)
    }

    package func cut(_ node: Node) -> Node {
        guard case .group(let group) = node.kind, encloses(node) else { return node }
        var node = node
        func cutLanes(_ lanes: Lanes, _ dependencies: [[Int]]) -> (Lanes, [[Int]]) {
            let chosen = self.lanes(lanes.children, dependencies: dependencies)
            var newIndex: [Int: Int] = [:]
            for (position, lane) in chosen.enumerated() { newIndex[lane.index] = position }
            var cut = lanes
            cut.children = chosen.map { $0.cut ? self.cut(lanes.children[$0.index]) : lanes.children[$0.index] }
            let remapped = chosen.map { lane in
                (lane.index < dependencies.count ? dependencies[lane.index] : []).compactMap { newIndex[$0] }
            }
            return (cut, remapped)
        }
        switch group {
        case .sequence(let block):
            node.kind = .group(.sequence(cut(block)))
        case .parallel(var parallel):
            (parallel.lanes, parallel.dependencies) = cutLanes(parallel.lanes, parallel.dependencies)
            node.kind = .group(.parallel(parallel))
        case .race(let lanes):
            node.kind = .group(.race(cutLanes(lanes, []).0))
        case .any(let lanes):
            node.kind = .group(.any(cutLanes(lanes, []).0))
        case .conditional(var conditional):
            conditional.then = cut(conditional.then)
            conditional.otherwise = conditional.otherwise.map(cut)
            node.kind = .group(.conditional(conditional))
        case .foreach:
            break
        }
        return node
    }

    package enum Place {
        case chain, foreach, clause
    }

    /// Every node with the ids of the groups around it.
    package static func walk(_ block: Block, ancestors: [String], place: Place, _ visit: (Node, [String], Place) -> Void) {
        for statement in block.statements {
            switch statement {
            case .node(let node): walk(node, ancestors: ancestors, place: place, visit)
            case .catch(let clause): walk(clause.body, ancestors: ancestors, place: place == .foreach ? .foreach : .clause, visit)
            case .ensure(let body): walk(body, ancestors: ancestors, place: place == .foreach ? .foreach : .clause, visit)
            case .environment, .variable, .dotenv: break
            }
        }
    }

    package static func walk(_ node: Node, ancestors: [String], place: Place, _ visit: (Node, [String], Place) -> Void) {
        visit(node, ancestors, place)
        guard case .group(let group) = node.kind else { return }
        let inside = ancestors + [node.id]
        for child in Outline.childBlocks(of: group) {
            switch child {
            case .block(let block, let foreach):
                walk(block, ancestors: inside, place: foreach ? .foreach : place, visit)
            case .node(let lane):
                walk(lane, ancestors: inside, place: place, visit)
            }
        }
    }
}

/// Labels that cannot be targets, each with why.
package struct TargetErrors: Error, Sendable {
    /// One line per label that cannot be a target.
    package var messages: [String]
}
