import PromiseEngine

/// The labelled steps and groups of a workflow, nested as written: what
/// `promise-run list` prints and what targets name.
/// See docs/language.md, 'Targets, desc, allow-failure, dotenv'.
package struct OutlineItem: Sendable, Hashable {
    /// The label as written.
    package var label: String
    /// `sh`, `http`, `parallel`, `foreach`, ...
    package var kind: String
    /// `desc "..."`.
    package var description: String?
    /// Where it is written.
    package var location: SourcePosition
    /// Inside a `foreach` body (runs once per item; not a target).
    package var insideForeach: Bool
    /// `on-demand`: it runs only when named as a target (or
    /// needed by a lane that runs).
    package var onDemand: Bool
    /// The labelled steps and groups inside it.
    package var children: [OutlineItem]
}

extension Workflow {
    /// The labelled nodes of the workflow, nested by their labelled
    /// ancestors (an unlabelled group's labelled children belong to the
    /// nearest labelled one above), in the order written.
    package var outline: [OutlineItem] {
        Outline.items(in: body, insideForeach: false)
    }
}

package enum Outline {
    package static func items(in block: Block, insideForeach: Bool) -> [OutlineItem] {
        var items: [OutlineItem] = []
        for statement in block.statements {
            switch statement {
            case .node(let node): items += self.items(of: node, insideForeach: insideForeach)
            case .catch(let clause): items += self.items(in: clause.body, insideForeach: insideForeach)
            case .ensure(let ensured): items += self.items(in: ensured, insideForeach: insideForeach)
            case .environment, .variable, .dotenv: break
            }
        }
        return items
    }

    package static func items(of node: Node, insideForeach: Bool) -> [OutlineItem] {
        var children: [OutlineItem] = []
        if case .group(let group) = node.kind {
            for child in childBlocks(of: group) {
                switch child {
                case .block(let block, let foreach):
                    children += items(in: block, insideForeach: insideForeach || foreach)
                case .node(let inner):
                    children += items(of: inner, insideForeach: insideForeach)
                }
            }
        }
        guard let label = node.label else { return children }
        return [
            OutlineItem(
                label: label, kind: node.kindName, description: node.attributes.description,
                location: node.location, insideForeach: insideForeach, onDemand: node.attributes.onDemand,
                children: children)
        ]
    }

    package enum Child {
        case block(Block, foreach: Bool)
        case node(Node)
    }

    package static func childBlocks(of group: Group) -> [Child] {
        switch group {
        case .sequence(let block): return [.block(block, foreach: false)]
        case .parallel(let parallel): return parallel.lanes.children.map(Child.node)
        case .race(let lanes), .any(let lanes): return lanes.children.map(Child.node)
        case .foreach(let foreach): return [.block(foreach.body, foreach: true)]
        case .conditional(let conditional):
            return [.block(conditional.then, foreach: false)] + (conditional.otherwise.map { [.block($0, foreach: false)] } ?? [])
        }
    }
}
