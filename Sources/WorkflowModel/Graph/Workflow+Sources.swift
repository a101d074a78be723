import RunnerSystem

extension Workflow {
    /// The `sources` patterns of the workflow's steps, each with the folder
    /// it is relative to (`--watch`); patterns and folders that interpolate
    /// are left out (they are known only while running).
    package var sourcePatterns: [(pattern: String, base: String)] {
        var patterns: [(pattern: String, base: String)] = []
        for node in allNodes {
            guard case .step(let step) = node.kind else { continue }
            let process: ProcessOptions
            switch step {
            case .shell(_, let options), .exec(_, let options): process = options
            default: continue
            }
            var base = directory
            if let cwd = node.attributes.cwd {
                guard let literal = cwd.literalValue else { continue }
                base = Paths.absolute(literal, from: directory)
            }
            for pattern in process.sources {
                if let literal = pattern.literalValue { patterns.append((literal, base)) }
            }
        }
        return patterns
    }
}
