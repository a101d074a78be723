import JSON
import PromiseEngine
package import WorkflowModel

/// Renders a workflow as a Mermaid `flowchart TD`.
package struct MermaidRenderer: Sendable {
    package init() {}

    package func render(_ workflow: Workflow) -> String {
        let graph = FlowGraph(workflow)
        var boxes: [String: FlowGraph.Box] = [:]
        for box in graph.boxes { boxes[box.id] = box }
        var output = "flowchart TD\n"
        write(graph.root, boxes, indent: "  ", into: &output)
        for edge in graph.edges {
            let arrow: String
            switch edge.style {
            case .normal, .needs: arrow = "-->"
            case .failure, .always: arrow = "-.->"
            }
            let label = edge.label.map { "|\(escape($0))|" } ?? ""
            output += "  \(edge.from) \(arrow)\(label) \(edge.to)\n"
        }
        return output
    }

    private func write(_ cluster: FlowGraph.Cluster, _ boxes: [String: FlowGraph.Box], indent: String, into output: inout String) {
        for id in cluster.boxes {
            guard let box = boxes[id] else { continue }
            let text = "\"" + escape(box.text) + "\""
            switch box.shape {
            case .start: output += indent + "\(id)([\(text)])\n"
            case .end: output += indent + "\(id)(((\"end\")))\n"
            case .step, .notRun: output += indent + "\(id)(\(text))\n"
            case .group: output += indent + "\(id)[[\(text)]]\n"
            case .decision: output += indent + "\(id){\(text)}\n"
            case .join: output += indent + "\(id)((\" \"))\n"
            }
        }
        for inner in cluster.clusters {
            output += indent + "subgraph \(inner.id) [\"\(escape(inner.title))\"]\n"
            write(inner, boxes, indent: indent + "  ", into: &output)
            output += indent + "end\n"
        }
    }

    /// Mermaid labels in quotes: entity codes for the characters that would
    /// end or confuse them.
    private func escape(_ text: String) -> String {
        text.replacingScalars { scalar in
            switch scalar {
            case "\"": "#quot;"
            case "<": "#lt;"
            case ">": "#gt;"
            case "|": "#124;"
            case "#": "#35;"
            case "\n": "<br/>"
            default: nil
            }
        }
    }
}
