import JSON
import PromiseEngine
package import WorkflowModel

/// Renders a workflow as a Graphviz `digraph` (`dot -Tsvg` draws it).
package struct DotRenderer: Sendable {
    package init() {}

    package func render(_ workflow: Workflow) -> String {
        let graph = FlowGraph(workflow)
        var output = "digraph \(quote(workflow.name)) {\n"
        output += "  rankdir=TB;\n"
        output += "  compound=true;\n"
        output += "  graph [fontname=\"Helvetica\", fontsize=11];\n"
        output += "  node [fontname=\"Helvetica\", fontsize=11];\n"
        output += "  edge [fontname=\"Helvetica\", fontsize=9];\n"
        var boxes: [String: FlowGraph.Box] = [:]
        for box in graph.boxes { boxes[box.id] = box }
        write(graph.root, boxes, indent: "  ", into: &output)
        for edge in graph.edges {
            var attributes: [String] = []
            if let label = edge.label { attributes.append("label=\(quote(label))") }
            switch edge.style {
            case .normal: break
            case .failure: attributes.append("style=dashed, color=red")
            case .always: attributes.append("style=dotted")
            case .needs: attributes.append("color=blue")
            }
            output += "  \(edge.from) -> \(edge.to)" + (attributes.isEmpty ? "" : " [" + attributes.joined(separator: ", ") + "]") + ";\n"
        }
        output += "}\n"
        return output
    }

    private func write(_ cluster: FlowGraph.Cluster, _ boxes: [String: FlowGraph.Box], indent: String, into output: inout String) {
        for id in cluster.boxes {
            guard let box = boxes[id] else { continue }
            output += indent + "\(id) [\(shape(box.shape)), label=\(quote(box.text))];\n"
        }
        for inner in cluster.clusters {
            output += indent + "subgraph cluster_\(inner.id) {\n"
            output += indent + "  label=\(quote(inner.title));\n"
            output += indent + "  style=rounded;\n"
            write(inner, boxes, indent: indent + "  ", into: &output)
            output += indent + "}\n"
        }
    }

    private func shape(_ shape: FlowGraph.Shape) -> String {
        switch shape {
        case .start: return "shape=oval, style=bold"
        case .end: return "shape=doublecircle"
        case .step: return "shape=box, style=rounded"
        case .group: return "shape=box, style=\"rounded,filled\", fillcolor=\"#eeeeee\""
        case .decision: return "shape=diamond"
        case .join: return "shape=point"
        case .notRun: return "shape=box, style=\"rounded,dashed\", fontcolor=gray40"
        }
    }

    /// A DOT string: quotes and backslashes escaped, so that no escape
    /// sequence of DOT (`\n`, `\l`) is formed by accident.
    private func quote(_ text: String) -> String {
        let escaped = text.replacingScalars { scalar in
            switch scalar {
            case "\"": "\\\""
            case "\\": "\\\\"
            case "\n": "\\n"
            case "\r": ""
            default: nil
            }
        }
        return "\"" + escaped + "\""
    }
}
