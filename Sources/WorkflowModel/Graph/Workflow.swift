import PromiseEngine

/// A checked workflow, ready to run: the root of the graph model.
package struct Workflow: Sendable {
    /// `workflow "name"`, or the file name without its extension.
    package var name: String
    /// The file as given (`-` for standard input) and its text, for
    /// pointing at expressions in errors found at run time.
    package var source: SourceFile
    /// The folder relative paths resolve against and processes start in
    /// (the file's folder; `.` for standard input).
    package var directory: String
    /// `timeout D` at the top level.
    package var timeout: Duration?
    /// Top-level `var` and `secret` declarations, which `--var` overrides.
    package var variables: [VariableDeclaration]
    /// Everything else at the top level, in order.
    package var body: Block
    /// Where each of `variables` stands in the body: the number of body
    /// statements before it. A variable is a statement of the chain like
    /// any other (it may refer to a step before it, and a failure in it is
    /// the chain's failure).
    package var variablePlacement: [Int]
    /// The `on-demand` steps and groups a cut to one run leaves out
    /// (`TargetSelection.cut`): `graph` and `--dry-run` show them apart,
    /// as not running. Empty in a workflow as written.
    package var leftOutOnDemand: [Node] = []

    /// - Parameter variablePlacement: see the property; nil puts every
    ///   variable before the body.
    package init(
        name: String, source: SourceFile, directory: String, timeout: Duration?, variables: [VariableDeclaration],
        body: Block, variablePlacement: [Int]? = nil
    ) {
        self.name = name
        self.source = source
        self.directory = directory
        self.timeout = timeout
        self.variables = variables
        self.body = body
        self.variablePlacement = variablePlacement ?? Array(repeating: 0, count: variables.count)
    }

    /// The body with the top-level variables in their places, as the
    /// executor runs it; `overrides` (`--var`) replace their values.
    package func bodyWithVariables(overrides: [String: String]) -> Block {
        guard !variables.isEmpty else { return body }
        var statements: [Statement] = []
        statements.reserveCapacity(body.statements.count + variables.count)
        var next = 0
        for index in 0...body.statements.count {
            while next < variables.count, variablePlacement[next] <= index {
                var variable = variables[next]
                if let override = overrides[variable.name] { variable.value = .literal(override) }
                statements.append(.variable(variable))
                next += 1
            }
            if index < body.statements.count { statements.append(body.statements[index]) }
        }
        var block = body
        block.statements = statements
        return block
    }

    /// The workflow file's path as given (`-` for standard input).
    package var path: String { source.path }

    /// The line and column of a range in the workflow file (for example an
    /// expression's), computed on demand.
    package func location(of range: SourceRange) -> SourcePosition {
        source.location(of: range.start)
    }

    /// Every node, depth first, in source order.
    package var allNodes: [Node] {
        var nodes: [Node] = []
        forEachNode { nodes.append($0) }
        return nodes
    }

    /// Calls `visit` with every node, depth first, in source order. The
    /// walk keeps its own stack (a workflow may nest deeper than a thread's
    /// stack would allow) of the statement and node lists it is inside, so
    /// no node is copied into a list of all of them (a list of a workflow's
    /// top-level nodes, made twice per run, cost 1,500 instructions a step).
    package func forEachNode(_ visit: (Node) -> Void) {
        var pending: [NodeWalk] = [.statements(body.statements, next: 0)]
        while let top = pending.indices.last {
            let node: Node
            switch pending[top] {
            case .statements(let statements, let index):
                guard index < statements.count else {
                    pending.removeLast()
                    continue
                }
                pending[top] = .statements(statements, next: index + 1)
                switch statements[index] {
                case .node(let found): node = found
                case .catch(let clause):
                    pending.append(.statements(clause.body.statements, next: 0))
                    continue
                case .ensure(let body):
                    pending.append(.statements(body.statements, next: 0))
                    continue
                case .environment, .variable, .dotenv: continue
                }
            case .nodes(let nodes, let index):
                guard index < nodes.count else {
                    pending.removeLast()
                    continue
                }
                pending[top] = .nodes(nodes, next: index + 1)
                node = nodes[index]
            }
            visit(node)
            guard case .group(let group) = node.kind else { continue }
            if let lanes = group.lanes {
                if !lanes.children.isEmpty { pending.append(.nodes(lanes.children, next: 0)) }
            } else {
                // The first block on top: it is walked first.
                for block in group.blocks.reversed() { pending.append(.statements(block.statements, next: 0)) }
            }
        }
    }
}

/// Where `forEachNode` is inside: a block's statements or a group's lanes,
/// and the next one to walk.
private enum NodeWalk {
    case statements([Statement], next: Int)
    case nodes([Node], next: Int)
}

extension Block {
    /// The nodes of the block and of its catch and ensure bodies, in order.
    package var allNodesInOrder: [Node] {
        var nodes: [Node] = []
        for statement in statements {
            switch statement {
            case .node(let node): nodes.append(node)
            case .catch(let clause): nodes += clause.body.allNodesInOrder
            case .ensure(let body): nodes += body.allNodesInOrder
            case .environment, .variable, .dotenv: break
            }
        }
        return nodes
    }
}

extension Node {
    /// The nodes directly below a group (through its blocks), in order.
    package var childNodes: [Node] {
        guard case .group(let group) = kind else { return [] }
        return group.lanes?.children ?? group.blocks.flatMap(\.allNodesInOrder)
    }
}
