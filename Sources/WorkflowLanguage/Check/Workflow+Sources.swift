import RunnerSystem
package import WorkflowModel

extension Workflow {
    /// The `sources` patterns of the workflow's steps, each with the folder
    /// it is relative to (`--watch`); patterns and folders that interpolate
    /// are left out (they are known only while running).
    package var sourcePatterns: [(pattern: String, base: String)] {
        patterns { $0.sources.isEmpty ? [] : $0.sources }
    }

    /// The `generates` patterns of the steps, each with its
    /// folder: what `--watch` never reacts to (the build's own output).
    package var generatedPatternsWithFolders: [(pattern: String, base: String)] {
        patterns { $0.generates }
    }

    private func patterns(_ chosen: (ProcessOptions) -> [Template]) -> [(pattern: String, base: String)] {
        var patterns: [(pattern: String, base: String)] = []
        forEachNode { node in
            guard case .step(let step) = node.kind else { return }
            let process: ProcessOptions
            switch step {
            case .shell(_, let options), .exec(_, let options): process = options
            default: return
            }
            let written = chosen(process)
            guard !written.isEmpty else { return }
            var base = directory
            if let cwd = node.attributes.cwd {
                guard let literal = cwd.literalValue else { return }
                base = Paths.absolute(literal, from: directory)
            }
            for pattern in written {
                if let literal = pattern.literalValue { patterns.append((literal, base)) }
            }
        }
        return patterns
    }

    /// The literal `generates` patterns of the workflow's steps.
    package var generatedPatterns: [String] {
        var patterns: [String] = []
        forEachNode { node in
            switch node.kind {
            case .step(.shell(_, let process)), .step(.exec(_, let process)):
                patterns += process.generates.compactMap(\.literalValue)
            default: break
            }
        }
        return patterns
    }
}
