import PromiseEngine
import WorkflowModel

extension WorkflowExecutor {
    /// The step with every template replaced by its text, as the step
    /// runner gets it: the only place a step's templates are evaluated.
    func resolve(_ step: Step, id: String, in values: ValueScope) throws(RunError) -> ResolvedStep {
        do {
            return try step.resolved { template in try interpolator.render(template, in: values, stepID: id) }
        } catch let error as RunError {
            throw error
        } catch {
            // `render` throws nothing else.
            throw RunError(stepID: id, kind: .fail, message: "\(error)")
        }
    }
}
