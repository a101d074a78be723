import Synchronization
import WorkflowModel

/// A foreach's one step, and whether a success of it would already be
/// counted and not kept (`WorkflowExecutor.leanIterations`). It holds
/// what every iteration's record shares, made once: an iteration's
/// context points here, and its record is made only as it ends.
final class LeanIterations: Sendable {
    let node: Node
    let step: Step
    let statsKey: String
    let recorder: RunRecorder
    /// What each iteration's record says before it runs, but its id and key.
    let shared: UnregisteredStep
    /// Once past, always past (counts only grow): asked of the recorder
    /// until then.
    private let past = Atomic<Bool>(false)

    init(node: Node, step: Step, statsKey: String, recorder: RunRecorder, shared: UnregisteredStep) {
        self.node = node
        self.step = step
        self.statsKey = statsKey
        self.recorder = recorder
        self.shared = shared
    }

    func isPast() -> Bool {
        if past.load(ordering: .relaxed) { return true }
        guard recorder.isPastKeptRecords(statsKey) else { return false }
        past.store(true, ordering: .relaxed)
        return true
    }

    /// The record-to-be of the iteration whose step is `id` at `key`.
    func step(id: String, key: [Int]) -> UnregisteredStep {
        var step = shared
        step.id = id
        step.key = key
        return step
    }
}
