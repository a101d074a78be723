import PromiseEngine
import WorkflowModel

/// Turns a checked syntax tree into the graph model: gives every node its
/// id, display name and line/column, resolves `needs` to indices, and drops
/// the ranges of names and keywords.
struct Lowering {
    let source: SourceFile
    let lines: LineTable
    /// Labels carried by more than one node (from the checker).
    let repeatedLabels: Set<String>

    init(source: SourceFile, repeatedLabels: Set<String>) {
        self.source = source
        self.lines = source.lineTable()
        self.repeatedLabels = repeatedLabels
    }

    /// Lowers the file, freeing the syntax of each top-level statement as
    /// soon as it is lowered (so the syntax tree and the model are not both
    /// whole in memory).
    func lower(_ file: consuming SyntaxFile) -> Workflow {
        var variables: [VariableDeclaration] = []
        // For each variable, how many other statements follow it.
        var followers: [Int] = []
        var statements: [Statement] = []
        var syntax = file.body.statements
        file.body.statements = []
        let placement = file.placement
        statements.reserveCapacity(syntax.count)
        while let statement = syntax.popLast() {
            if case .variable(let variable) = statement {
                variables.append(lower(variable))
                followers.append(statements.count)
            } else {
                statements.append(lower(statement, placement))
            }
        }
        variables.reverse()
        statements.reverse()
        return Workflow(
            name: file.name?.text ?? Lowering.defaultName(for: source.path),
            source: source,
            directory: Lowering.directory(of: source.path),
            timeout: file.timeout,
            variables: variables,
            body: Block(statements: statements),
            variablePlacement: followers.reversed().map { statements.count - $0 })
    }

    /// The file name without folder and extension; `stdin` for `-`.
    static func defaultName(for path: String) -> String {
        guard path != "-" else { return "stdin" }
        let file = path.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? path
        if let dot = file.lastIndex(of: "."), dot != file.startIndex {
            return String(file[..<dot])
        }
        return file
    }

    /// The folder of a path; `.` for a bare file name or standard input.
    static func directory(of path: String) -> String {
        guard path != "-", let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// `placement` is what the enclosing groups (and the workflow) say about
    /// where process steps run; each node gets its own settings with those
    /// filled in.
    private func lower(_ block: SyntaxBlock, _ placement: Placement) -> Block {
        var statements: [Statement] = []
        statements.reserveCapacity(block.statements.count)
        for statement in block.statements {
            statements.append(lower(statement, placement))
        }
        return Block(statements: statements)
    }

    private func lower(_ statement: SyntaxStatement, _ placement: Placement) -> Statement {
        switch statement {
        case .node(let node):
            return .node(lower(node, placement))
        case .catchClause(let clause):
            return .catch(
                CatchClause(
                    kinds: clause.kinds, body: lower(clause.body, placement),
                    location: source.location(of: clause.keyword.start)))
        case .ensure(let body, _):
            return .ensure(lower(body, placement))
        case .environment(let name, let value):
            return .environment(EnvironmentSetting(name: name.text, value: value))
        case .variable(let variable):
            return .variable(lower(variable))
        case .dotenv(let path, let optional, let keyword):
            return .dotenv(DotenvFile(path: path, optional: optional, location: source.location(of: keyword.start)))
        }
    }

    private func lower(_ variable: SyntaxVariable) -> VariableDeclaration {
        VariableDeclaration(
            name: variable.name.text, value: variable.value, isSecret: variable.isSecret,
            location: source.location(of: variable.name.range.start))
    }

    private func lower(_ node: SyntaxNode, _ inherited: Placement) -> Node {
        var attributes = node.attributes.lowered
        let placement = attributes.placement.inheriting(inherited)
        // Groups pass it on; of the steps, only processes run somewhere.
        switch node.kind {
        case .step(.shell), .step(.exec): attributes.placement = placement
        case .step: break
        default: attributes.placement = placement
        }
        let location = source.location(of: node.start)
        let kindName = node.kind.name
        let id: String
        if let label = node.label?.text {
            id = repeatedLabels.contains(label) ? label + "@" + location.description : label
        } else {
            id = kindName + "@" + location.description
        }
        let kind: Node.Kind
        switch node.kind {
        case .step(let step):
            kind = .step(step)
        case .sequence(let body):
            kind = .group(.sequence(lower(body, placement)))
        case .race(let body):
            kind = .group(.race(lanes(body, placement).lanes))
        case .any(let body):
            kind = .group(.any(lanes(body, placement).lanes))
        case .parallel(let limit, let keepGoing, let body, let rate):
            let (lanes, needs) = lanes(body, placement)
            var index: [String: Int] = [:]
            for (position, child) in lanes.children.enumerated() {
                if let label = child.label, index[label] == nil { index[label] = position }
            }
            let dependencies = needs.map { names in names.compactMap { index[$0] } }
            kind = .group(.parallel(ParallelGroup(limit: limit, keepGoing: keepGoing, lanes: lanes, dependencies: dependencies, rate: rate)))
        case .foreach(let foreach):
            var group = ForeachGroup(
                variable: foreach.variable.text, list: foreach.list, body: lower(foreach.body, placement),
                parallel: foreach.parallel, limit: foreach.limit, keepGoing: foreach.keepGoing,
                repetition: foreach.repetition, rate: foreach.rate)
            group.shape = foreach.shape
            group.ramp = foreach.ramp
            kind = .group(.foreach(group))
        case .conditional(let condition, let then, let otherwise):
            kind = .group(
                .conditional(
                    ConditionalGroup(
                        condition: condition, then: lower(then, placement),
                        otherwise: otherwise.map { lower($0, placement) })))
        }
        return Node(id: id, label: node.label?.text, location: location, attributes: attributes, kind: kind)
    }

    /// The children and declarations of a parallel, race or any body, and
    /// each child's `needs`.
    private func lanes(_ body: SyntaxBlock, _ placement: Placement) -> (lanes: Lanes, needs: [[String]]) {
        var lanes = Lanes(children: [])
        var needs: [[String]] = []
        for statement in body.statements {
            switch statement {
            case .node(let node):
                lanes.children.append(lower(node, placement))
                needs.append(node.attributes.needs.map(\.text))
            case .environment(let name, let value):
                lanes.environment.append(EnvironmentSetting(name: name.text, value: value))
            case .variable(let variable):
                lanes.variables.append(lower(variable))
            case .dotenv(let path, let optional, let keyword):
                lanes.dotenv.append(DotenvFile(path: path, optional: optional, location: source.location(of: keyword.start)))
            case .catchClause, .ensure:
                break
            }
        }
        return (lanes, needs)
    }

}
