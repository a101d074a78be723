import Synchronization
import WorkflowModel

/// A foreach's one step, and whether a success of it would already be
/// counted and not kept (`WorkflowExecutor.leanIterations`).
final class LeanIterations: Sendable {
    let node: Node
    let step: Step
    let statsKey: String
    let recorder: RunRecorder
    /// Once past, always past (counts only grow): asked of the recorder
    /// until then.
    private let past = Atomic<Bool>(false)

    init(node: Node, step: Step, statsKey: String, recorder: RunRecorder) {
        self.node = node
        self.step = step
        self.statsKey = statsKey
        self.recorder = recorder
    }

    func isPast() -> Bool {
        if past.load(ordering: .relaxed) { return true }
        guard recorder.isPastKeptRecords(statsKey) else { return false }
        past.store(true, ordering: .relaxed)
        return true
    }
}
