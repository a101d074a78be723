import PromiseEngine

/// `promise-run FILE TARGET...` and `on-demand`:
/// which parts of the workflow run. A target runs whole, with the
/// statements before it in every chain that encloses it (run whole) and,
/// in a `parallel`, the siblings it `needs`, in turn. Other lanes of the
/// groups that enclose a target, and the statements after it, do not run:
/// they are reported skipped, `not selected`. `catch` and `ensure` run as
/// usual.
///
/// An `on-demand` step or group runs only when it is a target, holds one
/// (then it runs cut down to it), or a lane that runs `needs` it; anywhere
/// else, in an ordinary run as in one with targets, it is left out and
/// reported skipped with a message that says how to run it. A group named
/// as a target runs as an ordinary run would run it: the `on-demand` parts
/// inside it stay out unless they are named too.
///
/// The executor and the renderers (`graph`, `--dry-run`) both ask this
/// type, so what is shown is what runs.
/// See docs/language.md, 'Targets, desc, allow-failure, dotenv' and 'Incremental steps'.
package struct TargetSelection: Sendable, Hashable {
    /// The labels asked for; none in an ordinary run.
    package let targets: [String]
    /// Node ids of the targets.
    package let chosen: Set<String>
    /// Node ids of the groups that enclose a target (cut inside).
    package let enclosing: Set<String>
    /// The workflow file as given, for the command line an `on-demand`
    /// step's message shows.
    package let file: String

    /// The reason a step that did not run because of targets is given.
    package static let notSelected = "not selected"

    /// What becomes of a step or group the run reaches.
    package enum Course: Sendable, Hashable {
        /// It runs whole (but for the `on-demand` parts inside it).
        case whole
        /// It runs cut down to the targets inside it.
        case cut
        /// Left out: it leads to no target.
        case notSelected
        /// Left out: `on-demand`, and no target names it or holds it.
        case onDemand

        /// Whether it runs (whole or cut).
        package var runs: Bool { self == .whole || self == .cut }
    }

    /// An ordinary run: no target; everything runs but the `on-demand`
    /// steps and groups.
    package static func ordinary(_ workflow: Workflow) -> TargetSelection {
        TargetSelection(targets: [], chosen: [], enclosing: [], file: workflow.path)
    }

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
                problems.append(
                    "'\(target)' is inside a catch or ensure block, which runs as part of its chain; name a step or group of the chain instead")
                continue
            case .chain:
                break
            }
            chosen.insert(match.node.id)
            enclosing.formUnion(match.ancestors)
        }
        guard problems.isEmpty else { return .failure(TargetErrors(messages: problems)) }
        return .success(TargetSelection(targets: targets, chosen: chosen, enclosing: enclosing, file: workflow.path))
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

    /// Where `block` is cut: nil when it runs whole; else the index of its
    /// last statement that leads to a target (-1: none does).
    package func cutPoint(of block: Block, cut: Bool) -> Int? {
        cut ? lastSelected(in: block) ?? -1 : nil
    }

    /// The course of the node at `index` of a block cut at `cutPoint`:
    /// the statements before the one that leads to a target run whole,
    /// that one runs cut (or whole, when it is a target), the rest are not
    /// selected; then `on-demand` has its say (`course(of:planned:)`).
    package func course(of node: Node, at index: Int, cutAt cutPoint: Int?) -> Course {
        guard let last = cutPoint else { return course(of: node, planned: .whole) }
        let planned: Course = index < last ? .whole : index > last ? .notSelected : isTarget(node) ? .whole : .cut
        return course(of: node, planned: planned)
    }

    /// What becomes of `node` where its chain or its group would give it
    /// `planned`: an `on-demand` node runs only when it is a target (whole)
    /// or holds one (cut down to it); otherwise it is left out.
    package func course(of node: Node, planned: Course) -> Course {
        guard node.attributes.onDemand else { return planned }
        if isTarget(node) { return .whole }
        if encloses(node) { return .cut }
        return .onDemand
    }

    /// The course of each lane of a `parallel`, `race` or `any` that runs
    /// whole or `cut`: cut, the lanes that are or hold a target run and
    /// the others are not selected; `on-demand` lanes run only as
    /// `course(of:planned:)` says; and a lane that runs brings the siblings
    /// it needs, in turn, whole. `dependencies[i]` lists the lanes lane
    /// `i` needs.
    package func lanes(_ children: [Node], dependencies: [[Int]], cut: Bool) -> [Course] {
        var courses = children.map { child -> Course in
            let planned: Course = !cut || isTarget(child) ? .whole : encloses(child) ? .cut : .notSelected
            return course(of: child, planned: planned)
        }
        for (index, runs) in Self.withNeeds(courses.map(\.runs), dependencies).enumerated() where runs && !courses[index].runs {
            courses[index] = .whole
        }
        return courses
    }

    /// Which lanes run once those that `run` bring the siblings they need
    /// (`dependencies[i]`, lane `i`'s), in turn. The checker asks it too.
    package static func withNeeds(_ runs: [Bool], _ dependencies: [[Int]]) -> [Bool] {
        var runs = runs
        var pending = runs.indices.filter { runs[$0] }
        while let index = pending.popLast() {
            guard index < dependencies.count else { continue }
            for needed in dependencies[index] where !runs[needed] {
                runs[needed] = true
                pending.append(needed)
            }
        }
        return runs
    }

    /// Why `node`, given `course`, did not run: the message of its skipped
    /// steps; nil when it runs.
    package func reason(_ course: Course, for node: Node) -> String? {
        switch course {
        case .whole, .cut: return nil
        case .notSelected: return Self.notSelected
        case .onDemand: return "on demand: run it with promise-run \(Self.shellWord(file)) \(node.label ?? node.id)"
        }
    }

    /// A path as one word of a shell command line: quoted only when it
    /// must be.
    private static func shellWord(_ path: String) -> String {
        let plain =
            !path.isEmpty
            && path.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII
                    && (scalar.properties.isAlphabetic || scalar.properties.numericType != nil || "._-/+,:@%".unicodeScalars.contains(scalar))
            }
        return plain ? path : Filter.shellQuoted(path)
    }

    /// The workflow as it runs with this selection: what is not selected
    /// left out, and the `on-demand` nodes that do not run moved to
    /// `leftOutOnDemand` (for `graph` and `--dry-run`).
    package func cut(_ workflow: Workflow) -> Workflow {
        var cut = workflow
        var leftOut: [Node] = []
        let last = cutPoint(of: workflow.body, cut: !targets.isEmpty)
        let (body, positions) = self.cut(workflow.body, cutAt: last, &leftOut)
        cut.body = body
        // Top-level variables after the last selected statement do not
        // run; the others keep their places among what is left.
        let placed = workflow.variablePlacement
        let kept = workflow.variables.indices.filter { index in last.map { placed[index] <= $0 } ?? true }
        cut.variables = kept.map { workflow.variables[$0] }
        cut.variablePlacement = kept.map { positions[min(placed[$0], positions.count - 1)] }
        cut.leftOutOnDemand = leftOut
        return cut
    }

    /// A block cut at `cutPoint`, and where each of its statements (and
    /// its end) now stands.
    private func cut(_ block: Block, cutAt cutPoint: Int?, _ leftOut: inout [Node]) -> (block: Block, positions: [Int]) {
        var statements: [Statement] = []
        var positions: [Int] = []
        for (index, statement) in block.statements.enumerated() {
            positions.append(statements.count)
            switch statement {
            case .node(let node):
                let course = course(of: node, at: index, cutAt: cutPoint)
                switch course {
                case .whole, .cut: statements.append(.node(cut(node, course, &leftOut)))
                case .onDemand: leftOut.append(node)
                case .notSelected: break
                }
            case .catch, .ensure:
                statements.append(statement)
            case .environment, .variable, .dotenv:
                if cutPoint.map({ index < $0 }) ?? true { statements.append(statement) }
            }
        }
        positions.append(statements.count)
        return (Block(statements: statements), positions)
    }

    private func cut(_ node: Node, _ course: Course, _ leftOut: inout [Node]) -> Node {
        guard case .group(let group) = node.kind else { return node }
        let cutting = course == .cut
        var node = node
        func cutBlock(_ block: Block) -> Block {
            cut(block, cutAt: cutPoint(of: block, cut: cutting), &leftOut).block
        }
        func cutLanes(_ lanes: Lanes, _ dependencies: [[Int]]) -> (Lanes, [[Int]]) {
            let courses = self.lanes(lanes.children, dependencies: dependencies, cut: cutting)
            var newIndex: [Int: Int] = [:]
            var children: [Node] = []
            for (index, course) in courses.enumerated() {
                switch course {
                case .whole, .cut:
                    newIndex[index] = children.count
                    children.append(cut(lanes.children[index], course, &leftOut))
                case .onDemand: leftOut.append(lanes.children[index])
                case .notSelected: break
                }
            }
            var cut = lanes
            cut.children = children
            let remapped = courses.indices.filter { newIndex[$0] != nil }.map { index in
                (index < dependencies.count ? dependencies[index] : []).compactMap { newIndex[$0] }
            }
            return (cut, remapped)
        }
        switch group {
        case .sequence(let block):
            node.kind = .group(.sequence(cutBlock(block)))
        case .parallel(var parallel):
            (parallel.lanes, parallel.dependencies) = cutLanes(parallel.lanes, parallel.dependencies)
            node.kind = .group(.parallel(parallel))
        case .race(let lanes):
            node.kind = .group(.race(cutLanes(lanes, []).0))
        case .any(let lanes):
            node.kind = .group(.any(cutLanes(lanes, []).0))
        case .conditional(var conditional):
            conditional.then = cutBlock(conditional.then)
            conditional.otherwise = conditional.otherwise.map(cutBlock)
            node.kind = .group(.conditional(conditional))
        case .foreach:
            // Neither a target nor `on-demand` is inside a foreach body.
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
