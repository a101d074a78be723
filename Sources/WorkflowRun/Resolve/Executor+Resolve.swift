import PromiseEngine
import WorkflowModel

extension WorkflowExecutor {
    /// The step with every template replaced by its text, as the step
    /// runner gets it: the only place a step's templates are evaluated.
    /// The Basic authentication token an http step makes of a secret is a
    /// secret from here on.
    ///
    /// A step whose templates are all plain text resolves to the same step
    /// every time: it is resolved once per node (`constantSteps`, by node
    /// id: ids are unique in a workflow, and its nodes do not change during
    /// a run; the location is checked too, where comparing the steps took
    /// 11,000 instructions). A load test's request resolved it thousands of
    /// times a second, 2,400 instructions each.
    func resolve(_ step: Step, id: String, node: Node, in values: ValueScope) throws(RunError) -> ResolvedStep {
        let known = constantSteps.withLock { $0[node.id] }
        if let known, known.location == node.location {
            if let resolved = known.resolved {
                if !secrets.isEmpty, case .http(let request) = resolved { secrets.addTokens(madeBy: request) }
                return resolved
            }
        } else {
            let constant = step.templates.allSatisfy { $0.literalValue != nil }
            var resolved: ResolvedStep?
            if constant { resolved = try resolve(step, id: id, in: values) }
            let entry = ConstantStep(location: node.location, resolved: resolved)
            constantSteps.withLock { $0[node.id] = entry }
            if let resolved { return resolved }
        }
        return try resolve(step, id: id, in: values)
    }

    private func resolve(_ step: Step, id: String, in values: ValueScope) throws(RunError) -> ResolvedStep {
        do {
            let resolved = try step.resolved { template in try interpolator.render(template, in: values, stepID: id) }
            // The secrets first: the request is copied when it is bound.
            if !secrets.isEmpty, case .http(let request) = resolved { secrets.addTokens(madeBy: request) }
            return resolved
        } catch let error as RunError {
            throw error
        } catch {
            // `render` throws nothing else.
            throw RunError(stepID: id, kind: .fail, message: "\(error)")
        }
    }
}

/// Where a node is and, when its step's templates are all plain text,
/// what the step resolves to (nil when one has an expression).
struct ConstantStep: Sendable {
    let location: SourcePosition
    let resolved: ResolvedStep?
}
