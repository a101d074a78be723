import PromiseEngine
import RunnerSystem
import WorkflowModel

/// What a step's end needs to know of its start: which step, where, when
/// it was ready and how late, and how its record is kept. Made once as
/// the step starts; `WorkflowExecutor.finish` reads it as it ends.
struct StepEnding: Sendable {
    let node: Node
    let step: Step
    let id: String
    let context: ExecutionContext
    /// When the step was ready to start: its latency runs from here.
    let ready: Duration
    /// How late its schedule started it (under a `rate`).
    let lateness: Duration?
    /// Its record-to-be, when it is recorded only as it ends.
    let unregistered: UnregisteredStep?
    /// When an unregistered step was let start (its record says).
    let startedAt: Double?
    let retried: Bool
    /// Whether its result is stored under its label for the steps after
    /// it. Not for a lean iteration's one step: nothing after it in the
    /// iteration could read it, and the iteration's values end with it.
    let storesResult: Bool
}

extension WorkflowExecutor {
    /// How a step ends, for the records and the chain: its record
    /// finished, its latency measured, its result stored under its label;
    /// a failure passed on (or, with `allow-failure`, reported and
    /// passed over).
    func finish(_ outcome: Outcome<StepResult?>, _ ending: StepEnding) -> Outcome<Void> {
        let node = ending.node
        let id = ending.id
        let context = ending.context
        /// `{{label.duration}}` is the step's time over all its attempts,
        /// as the console table and the reports say (docs/language.md).
        func overAllAttempts(_ result: StepResult, at now: Duration) -> StepResult {
            guard ending.retried, let elapsed = recorder.elapsed(id, at: now) else { return result }
            var result = result
            result.duration = elapsed
            return result
        }
        switch outcome {
        case .fulfilled(let result):
            // One instant for the field and the record: they agree.
            // It is when the step ended, which a deferred read of its
            // response learns late (`settledEarlier`).
            let earlier = result?.settledEarlier ?? .zero
            let now = clock.now() - earlier
            context.latencyStart?.ended(earlier: earlier)
            if ending.storesResult, let label = node.label, let result {
                context.values.store(overAllAttempts(result, at: now), label: label)
            }
            let latency = now - ending.ready
            for measure in context.measures {
                measure.add(label: node.label, failed: false, latency: latency, lateness: ending.lateness)
            }
            if let unregistered = ending.unregistered {
                recorder.finishUnregistered(
                    unregistered, status: .succeeded, result: result, startedAt: ending.startedAt,
                    duration: latency, latency: latency, lateness: ending.lateness)
            } else {
                recorder.finish(id, status: .succeeded, result: result, latency: latency, lateness: ending.lateness, at: now)
            }
            return .fulfilled(())
        case .rejected(let error):
            let (runError, failure) = describe(error, step: id)
            let allowed = node.attributes.allowFailure
            let earlier = failure.result?.settledEarlier ?? .zero
            let now = clock.now() - earlier
            context.latencyStart?.ended(earlier: earlier)
            // Before `finish` ends the record's time: the field covers every attempt too.
            let produced = allowed ? failure.result.map { overAllAttempts($0, at: now) } : nil
            let latency = now - ending.ready
            for measure in context.measures {
                measure.add(label: node.label, failed: true, latency: latency, lateness: ending.lateness)
            }
            if let unregistered = ending.unregistered {
                recorder.finishUnregistered(
                    withValues(unregistered, ending), status: .failed, failure: failure, allowedFailure: allowed,
                    startedAt: ending.startedAt, duration: latency, latency: latency, lateness: ending.lateness)
            } else {
                recorder.finish(
                    id, status: .failed, failure: failure, allowedFailure: allowed, latency: latency,
                    lateness: ending.lateness, at: now)
            }
            guard allowed else { return .rejected(runError) }
            // Reported as failed; the chain goes on as if it succeeded,
            // with what the step produced (its exit code, its output).
            if ending.storesResult, let label = node.label, let produced { context.values.store(produced, label: label) }
            return .fulfilled(())
        case .cancelled:
            if let unregistered = ending.unregistered {
                // Let start (its slot is free at once, see leanIterations).
                recorder.finishUnregistered(
                    withValues(unregistered, ending), status: .cancelled, startedAt: ending.startedAt, duration: clock.now() - ending.ready)
                return .cancelled
            }
            let started = recorder.status(of: id) == .running
            recorder.finish(id, status: started ? .cancelled : .skipped)
            return .cancelled
        }
    }

    /// An unregistered step's record-to-be saying what ran, with its
    /// values (`{{path}}` as the path), as a registered step's record
    /// says: for the records kept, those that did not succeed.
    private func withValues(_ unregistered: UnregisteredStep, _ ending: StepEnding) -> UnregisteredStep {
        guard ASCIIByte.occurs(UInt8(ascii: "{"), in: unregistered.summary),
            let resolved = try? resolve(ending.step, id: ending.id, node: ending.node, in: ending.context.values)
        else { return unregistered }
        var described = unregistered
        described.summary = StepSummary.describe(resolved)
        return described
    }

    /// An iteration of a lean foreach (`leanIterations`): its one step run
    /// straight, not through the block, step and attempt layers (and
    /// their closures and promises) a step otherwise goes through. The
    /// same records, statistics, latency, cancellation and failures as
    /// `runStep`. Nil when it cannot start at once (its slots are taken,
    /// or it has a `timeout`): the usual way then runs it.
    func runLean(_ lean: LeanIterations, _ iteration: ExecutionContext) -> Promise<Void>? {
        let node = lean.node
        let step = lean.step
        guard node.attributes.timeout == nil, !node.attributes.onDemand, !iteration.cancel.isCancelled else { return nil }
        // Its slots, taken at once, or the usual way waits for them.
        var held: (slots: Slots, count: Int)?
        if let (slots, count) = slotDemand(node, step) {
            guard let taken = slots.take(count: count) else { return nil }
            held = (slots, taken)
        }
        // Its place, as the block around it gives it.
        var context = iteration
        context.key = iteration.key(ofChild: 0)
        let id = IterationText.joined(node.id, context.suffix)
        let due = context.latencyStart?.take()
        let ready = due ?? clock.now()
        let ending = StepEnding(
            node: node, step: step, id: id, context: context, ready: ready, lateness: due.map { clock.now() - $0 },
            unregistered: lean.step(id: id, key: context.key), startedAt: WallClock.now(), retried: false,
            storesResult: false)
        let running: Promise<StepResult>
        do {
            running = try launch(node, step, id, context)
        } catch {
            if let held { held.slots.giveBack(held.count) }
            return Promise(outcome: finish(.rejected(error), ending))
        }
        let cancel = context.cancel
        let registration = cancel.onCancel { running.cancel() }
        return running.derive(
            .inline,
            .outcome { [self, held] outcome in
                if let held { held.slots.giveBack(held.count) }
                cancel.removeHandler(registration)
                return .outcome(finish(outcome.map { $0 }, ending))
            })
    }
}
