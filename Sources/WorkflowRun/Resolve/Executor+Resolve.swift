import PromiseEngine
import WorkflowModel

extension WorkflowExecutor {
    /// The step with every template replaced by its text, as the step
    /// runner gets it: the only place a step's templates are evaluated.
    /// The Basic authentication token an http step makes of a secret is a
    /// secret from here on.
    func resolve(_ step: Step, id: String, in values: ValueScope) throws(RunError) -> ResolvedStep {
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
