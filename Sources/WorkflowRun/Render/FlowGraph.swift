import PromiseEngine
import WorkflowModel

/// The workflow as boxes and arrows, shared by the DOT and Mermaid
/// renderers: a start and an end, one box per step, fork and join points
/// for groups, clusters for groups and clauses, and edges for the order of
/// the chain (dashed to a catch, dotted to an ensure).
struct FlowGraph {
    enum Shape {
        case start, end, step, group, decision, join
        /// An `on-demand` step or group this run leaves out.
        case notRun
    }

    struct Box {
        var id: String
        var text: String
        var shape: Shape
    }

    enum EdgeStyle {
        case normal, failure, always, needs
    }

    struct Edge {
        var from: String
        var to: String
        var label: String?
        var style: EdgeStyle
    }

    /// A group drawn as a frame around its boxes.
    struct Cluster {
        var id: String
        var title: String
        var boxes: [String] = []
        var clusters: [Cluster] = []
    }

    private(set) var boxes: [Box] = []
    private(set) var edges: [Edge] = []
    /// The top level: boxes not in any cluster, and the clusters.
    private(set) var root = Cluster(id: "root", title: "")
    private var clusterStack: [Cluster] = []
    private var counter = 0

    init(_ workflow: Workflow) {
        clusterStack = [root]
        let start = add("workflow " + workflow.name + (workflow.timeout.map { " (timeout \(DurationText.format($0)))" } ?? ""), .start)
        let (entries, exits) = chain(workflow.body)
        let end = add("end", .end)
        connect([start], entries.isEmpty ? [end] : entries)
        connect(exits.isEmpty && entries.isEmpty ? [] : exits, [end])
        // What is `on-demand` and not run by this run: apart, unconnected.
        if !workflow.leftOutOnDemand.isEmpty {
            openCluster("on demand, not run (a target names one)")
            for node in workflow.leftOutOnDemand {
                let what: String
                switch node.kind {
                case .step(let step): what = StepSummary.truncate(StepSummary.describe(step), to: 60)
                case .group(let group): what = group.kindName
                }
                _ = add((node.label.map { $0 + ": " } ?? "") + what, .notRun)
            }
            closeCluster()
        }
        root = clusterStack[0]
    }

    // MARK: - Building

    private mutating func add(_ text: String, _ shape: Shape) -> String {
        counter += 1
        let id = "n\(counter)"
        boxes.append(Box(id: id, text: text, shape: shape))
        clusterStack[clusterStack.count - 1].boxes.append(id)
        return id
    }

    private mutating func connect(_ from: [String], _ to: [String], label: String? = nil, style: EdgeStyle = .normal) {
        for source in from {
            for target in to {
                edges.append(Edge(from: source, to: target, label: label, style: style))
            }
        }
    }

    private mutating func openCluster(_ title: String) {
        counter += 1
        clusterStack.append(Cluster(id: "c\(counter)", title: title))
    }

    private mutating func closeCluster() {
        let cluster = clusterStack.removeLast()
        clusterStack[clusterStack.count - 1].clusters.append(cluster)
    }

    /// A block as a chain; returns its entry and exit boxes (both empty for
    /// an empty block).
    private mutating func chain(_ block: Block) -> (entries: [String], exits: [String]) {
        var entries: [String] = []
        var exits: [String] = []
        for statement in block.statements {
            switch statement {
            case .node(let node):
                let (nodeEntries, nodeExits) = build(node)
                if entries.isEmpty { entries = nodeEntries }
                connect(exits, nodeEntries)
                exits = nodeExits
            case .catch(let clause):
                openCluster("catch" + clause.kinds.map { " " + $0.rawValue }.joined())
                let (bodyEntries, bodyExits) = chain(clause.body)
                closeCluster()
                connect(exits, bodyEntries, label: "on failure", style: .failure)
                if entries.isEmpty { entries = bodyEntries }
                exits += bodyExits
            case .ensure(let body):
                openCluster("ensure")
                let (bodyEntries, bodyExits) = chain(body)
                closeCluster()
                connect(exits, bodyEntries, label: "always", style: .always)
                if entries.isEmpty { entries = bodyEntries }
                if !bodyExits.isEmpty { exits = bodyExits }
            case .environment, .variable, .dotenv:
                break
            }
        }
        return (entries, exits)
    }

    private mutating func build(_ node: Node) -> (entries: [String], exits: [String]) {
        let name = node.label.map { $0 + ": " } ?? ""
        let options = FlowGraph.options(node.attributes)
        switch node.kind {
        case .step(let step):
            // Where it runs, when not here.
            let place = node.isProcessStep && node.attributes.placement.executor == .slurm ? " (on slurm)" : ""
            let box = add(name + StepSummary.truncate(StepSummary.describe(step), to: 60) + place + options, .step)
            return ([box], [box])
        case .group(let group):
            switch group {
            case .sequence(let block):
                openCluster(name + "sequence" + options)
                let result = chain(block)
                closeCluster()
                return result
            case .parallel(let parallel):
                var title = "parallel"
                if let limit = parallel.limit { title += " limit \(limit)" }
                if let rate = parallel.rateText { title += " rate \(rate)" }
                if parallel.keepGoing { title += " keep-going" }
                return lanes(parallel.lanes.children, title: name + title + options, dependencies: parallel.dependencies)
            case .race(let lanes):
                return self.lanes(lanes.children, title: name + "race" + options, dependencies: nil)
            case .any(let lanes):
                return self.lanes(lanes.children, title: name + "any" + options, dependencies: nil)
            case .foreach(let foreach):
                let keyword = foreach.repetition == nil ? "foreach" : "repeat"
                openCluster(name + keyword + (foreach.parallel ? " parallel" : "") + options)
                let head = add(
                    foreach.repetitionText() ?? "foreach \(foreach.variable) in \(FlowGraph.describe(foreach.list))",
                    .group)
                let (entries, exits) = chain(foreach.body)
                connect([head], entries, label: foreach.parallel ? "each item, at once" : "each item")
                closeCluster()
                return ([head], exits.isEmpty ? [head] : exits)
            case .conditional(let conditional):
                openCluster(name + "if" + options)
                let decision = add("if " + FlowGraph.describe(conditional.condition), .decision)
                let (thenEntries, thenExits) = chain(conditional.then)
                connect([decision], thenEntries, label: "then")
                var exits = thenEntries.isEmpty ? [decision] : thenExits
                if let otherwise = conditional.otherwise {
                    let (elseEntries, elseExits) = chain(otherwise)
                    connect([decision], elseEntries, label: "else")
                    exits += elseEntries.isEmpty ? [decision] : elseExits
                } else if !thenEntries.isEmpty {
                    exits.append(decision)
                }
                closeCluster()
                return ([decision], Array(Set(exits)).sorted())
            }
        }
    }

    /// Children that start together: a fork, the lanes, a join.
    private mutating func lanes(_ children: [Node], title: String, dependencies: [[Int]]?) -> ([String], [String]) {
        openCluster(title)
        let fork = add("start " + (title.split(separator: " ").first { !$0.hasSuffix(":") }.map(String.init) ?? "group"), .group)
        var ends: [(entries: [String], exits: [String])] = []
        for child in children {
            ends.append(build(child))
        }
        let join = add("", .join)
        for (index, end) in ends.enumerated() {
            let needed = dependencies?[index] ?? []
            if needed.isEmpty {
                connect([fork], end.entries)
            } else {
                for sibling in needed { connect(ends[sibling].exits, end.entries, label: "needs", style: .needs) }
            }
            connect(end.exits, [join])
        }
        if children.isEmpty { connect([fork], [join]) }
        closeCluster()
        return ([fork], [join])
    }

    static func options(_ attributes: Attributes) -> String {
        var options: [String] = []
        if let timeout = attributes.timeout { options.append("timeout \(DurationText.format(timeout))") }
        if let retry = attributes.retry { options.append("retry \(retry.count)") }
        return options.isEmpty ? "" : " [" + options.joined(separator: ", ") + "]"
    }

    static func describe(_ list: ListSource) -> String {
        switch list {
        case .items(let items): return "[" + items.map { "\"\($0.sourceText)\"" }.joined(separator: ", ") + "]"
        case .lines(let file): return "lines(\"\(file.sourceText)\")"
        case .split(let value): return "split(\"\(value.sourceText)\")"
        case .glob(let pattern): return "glob(\"\(pattern.sourceText)\")"
        case .range(let low, let high): return "range(\(low.sourceText), \(high.sourceText))"
        }
    }

    static func describe(_ condition: Condition) -> String {
        switch condition {
        case .equal(let left, let right): return "\"\(left.sourceText)\" == \"\(right.sourceText)\""
        case .notEqual(let left, let right): return "\"\(left.sourceText)\" != \"\(right.sourceText)\""
        case .exists(let path): return "exists \"\(path.sourceText)\""
        case .not(let inner): return "not " + describe(inner)
        }
    }
}
