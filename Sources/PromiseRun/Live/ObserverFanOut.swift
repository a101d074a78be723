import WorkflowModel
import WorkflowRun

/// Several observers of one run (the console, `--events`,
/// `--metrics-listen`), each told what it asks for: a step's start goes
/// only to those that show it, so the console keeps its own choice.
final class ObserverFanOut: ExecutionObserver {
    let observers: [any ExecutionObserver]

    init(observers: [any ExecutionObserver]) {
        self.observers = observers
    }

    func showsStart(ofAttempt attempt: Int, inGroup group: String?) -> Bool {
        observers.contains { $0.showsStart(ofAttempt: attempt, inGroup: group) }
    }

    func stepBegan(_ id: String, attempt: Int) {
        for observer in observers { observer.stepBegan(id, attempt: attempt) }
    }

    func stepStarted(_ record: StepRecord) {
        for observer in observers where observer.showsStart(ofAttempt: record.attempts, inGroup: record.group) {
            observer.stepStarted(record)
        }
    }

    func stepFinished(_ record: StepRecord) {
        for observer in observers { observer.stepFinished(record) }
    }

    func stepFinished(_ record: StepRecord, latency: Duration?, lateness: Duration?) {
        for observer in observers { observer.stepFinished(record, latency: latency, lateness: lateness) }
    }

    func groupFinished(_ record: GroupRecord) {
        for observer in observers { observer.groupFinished(record) }
    }

    func log(_ message: String, step id: String) {
        for observer in observers { observer.log(message, step: id) }
    }

    func transfer(step id: String, received: Int64, expected: Int64?) {
        for observer in observers { observer.transfer(step: id, received: received, expected: expected) }
    }

    func warning(_ message: String) {
        for observer in observers { observer.warning(message) }
    }

    func retryWaiting(step id: String, for wait: Duration, capped: Bool) {
        for observer in observers { observer.retryWaiting(step: id, for: wait, capped: capped) }
    }

    func iterationsNotStarted(group id: String, count: Int) {
        for observer in observers { observer.iterationsNotStarted(group: id, count: count) }
    }

    func loadGroupEnded(_ progress: LoadProgress) {
        for observer in observers { observer.loadGroupEnded(progress) }
    }
}
