extension Workflow {
    /// The largest explicit `limit` of a group that holds http steps at
    /// any depth; nil when none does (the run's connection cap
    /// is the larger of this and `--http-connections`). A limit written as
    /// a template counts when its variables are known before the run:
    /// `--var` values (`overrides`) and top-level variables with a literal
    /// value.
    package func largestHTTPLimit(overrides: [String: String] = [:]) -> Int? {
        var known = overrides
        for variable in variables where known[variable.name] == nil {
            if let value = variable.value.literalValue { known[variable.name] = value }
        }
        var largest: Int?
        forEachNode { node in
            var limit = node.writtenLimit
            if case .group(.foreach(let foreach)) = node.kind, let template = foreach.shape?.limit {
                limit = Int(
                    template.rendered { expression in
                        if case .variable(let name) = expression.reference { return known[name] }
                        return nil
                    })
            }
            guard let limit, limit > (largest ?? 0), node.holdsHTTPStep else { return }
            largest = limit
        }
        return largest
    }

    /// The ids of the groups that make load: each `repeat`, and
    /// each `foreach` with a `rate`.
    package var loadGroupIDs: Set<String> {
        var ids: Set<String> = []
        forEachNode { node in
            if case .group(.foreach(let foreach)) = node.kind, foreach.repetition != nil || foreach.rate != nil {
                ids.insert(node.id)
            }
        }
        return ids
    }
}

extension Node {
    /// The `limit N` of a parallel group or parallel iterations, as written.
    package var writtenLimit: Int? {
        switch kind {
        case .group(.parallel(let parallel)): return parallel.limit
        case .group(.foreach(let foreach)) where foreach.parallel: return foreach.limit
        default: return nil
        }
    }

    /// Whether an http step is among the node's descendants (or is the node).
    package var holdsHTTPStep: Bool {
        var pending: [Node] = [self]
        while let node = pending.popLast() {
            switch node.kind {
            case .step(.http): return true
            case .step: continue
            case .group: pending += node.childNodes
            }
        }
        return false
    }
}
