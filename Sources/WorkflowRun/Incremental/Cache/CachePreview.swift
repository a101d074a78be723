package import PromiseEngine
import RunnerSystem
package import WorkflowModel

/// `--dry-run` with a cache: which steps with `sources` the
/// cache would restore. A key is known before running when the step's
/// command, stdin, folder and patterns are written without `{{ }}` and
/// the workflow gives no environment (`env`, `dotenv`, `--env-file`);
/// otherwise the cache is asked when the step runs.
/// See docs/language.md, 'A shared cache'.
package enum CachePreview {
    /// For each step with `sources`: "would be restored from the cache",
    /// "not in the cache", or why it cannot be known before running.
    package static func verdicts(
        _ workflow: Workflow, cache: SharedCache, currentDirectory: String,
        givenEnvironment: Bool, inherited: [String: String]
    ) -> Promise<[(id: String, verdict: String)]> {
        let folder = Paths.absolute(workflow.directory, from: currentDirectory)
        let givesEnvironment = givenEnvironment || workflow.body.givesEnvironment
        var asks: [(id: String, key: String?, reason: String)] = []
        for node in workflow.allNodes {
            guard case .step(let step) = node.kind, let process = step.processOptions, !process.sources.isEmpty else { continue }
            if givesEnvironment {
                asks.append((node.id, nil, "asked when it runs: the workflow gives its steps an environment"))
                continue
            }
            let cwd = node.attributes.cwd.map { $0.literalValue }
            guard cwd != .some(nil),
                let resolved = try? step.resolved(by: { template throws(CacheProblem) -> String in
                    guard let text = template.literalValue else { throw CacheProblem(.failed, "template") }
                    return text
                })
            else {
                asks.append((node.id, nil, "asked when it runs: its command or patterns use {{ }}"))
                continue
            }
            let base = cwd.flatMap { $0 }.map { Paths.absolute($0, from: folder) } ?? folder
            var environment: [String: String] = [:]
            for name in process.environmentInputs {
                environment["env-inputs " + name] = inherited[name].map { "=" + $0 } ?? "unset"
            }
            let key = cache.key(for: resolved, workflowDirectory: folder, workingDirectory: base, environment: environment)
            asks.append((node.id, key, ""))
        }
        let all = asks
        return when(fulfilled: all, limit: 8) { ask -> Promise<String> in
            guard let key = ask.key else { return Promise(value: ask.reason) }
            return cache.contains(key: key).map { found in
                switch found {
                case true?: return "would be restored from the cache"
                case false?: return "not in the cache"
                case nil: return "the cache could not be asked"
                }
            }
        }.map { verdicts in zip(all, verdicts).map { ($0.0.id, $0.1) } }
    }
}

extension Block {
    /// Whether an `env` or `dotenv` is anywhere in the block or below it.
    var givesEnvironment: Bool {
        statements.contains { statement in
            switch statement {
            case .environment, .dotenv: return true
            case .variable: return false
            case .catch(let clause): return clause.body.givesEnvironment
            case .ensure(let body): return body.givesEnvironment
            case .node(let node): return node.givesEnvironment
            }
        }
    }
}

extension Node {
    fileprivate var givesEnvironment: Bool {
        if !attributes.environment.isEmpty { return true }
        guard case .group(let group) = kind else { return false }
        if let lanes = group.lanes {
            return !lanes.environment.isEmpty || !lanes.dotenv.isEmpty || lanes.children.contains { $0.givesEnvironment }
        }
        return group.blocks.contains { $0.givesEnvironment }
    }
}
