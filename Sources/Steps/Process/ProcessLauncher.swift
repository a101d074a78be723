import PromiseEngine
import WorkflowModel

/// Where process steps (`sh`, `exec`) run: this machine, a Slurm cluster,
/// or (in time) another scheduler. `SystemStepRunner` picks one per step
/// from the step's context; everything else about a process step (output
/// streamed back, expectations, captures, retries, cancellation) is the
/// executor's to keep as on this machine. docs/steps.md says how a
/// Kubernetes executor would fit.
protocol ProcessLauncher: Sendable {
    /// `sh COMMAND`.
    func runShell(_ command: String, _ options: ResolvedProcessOptions, in context: StepContext) -> Promise<StepResult>
    /// `exec PROGRAM ARGS...`.
    func runExec(_ arguments: [String], _ options: ResolvedProcessOptions, in context: StepContext) -> Promise<StepResult>
}

extension ProcessStepRunner: ProcessLauncher {}
extension SlurmStepRunner: ProcessLauncher {}
