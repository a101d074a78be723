import PromiseEngine
import RunnerSystem
import WorkflowModel

extension WorkflowExecutor {
    /// A group. `context.key` is the group's position.
    func runGroup(_ group: Group, _ node: Node, _ context: ExecutionContext) -> Promise<Void> {
        let id = node.id + context.suffix
        switch group {
        case .sequence(let block):
            return runBlock(block, context)

        case .parallel(let parallel):
            return runLanes(
                parallel.lanes, dependencies: parallel.dependencies, limit: parallel.limit, rate: parallel.rate,
                mode: .all(keepGoing: parallel.keepGoing || configuration.keepGoing || context.countsFailures), id: id, context)

        case .race(let lanes):
            return runLanes(lanes, dependencies: [], limit: nil, mode: .race, id: id, context)

        case .any(let lanes):
            return runLanes(lanes, dependencies: [], limit: nil, mode: .any, id: id, context)

        case .foreach(let foreach):
            return firstly { () throws(RunError) -> Promise<Void> in
                let written = foreach.shape
                let foreach = try resolvingShape(of: foreach, in: context.values, id: id)
                // A limit known only now may ask for more than the run's
                // connection cap, which was set as it started: said.
                if written?.limit != nil, let limit = foreach.limit, limit > httpSlots.capacity,
                    foreach.body.allNodesInOrder.contains(where: \.holdsHTTPStep)
                {
                    observer?.warning(
                        "'\(id)' has 'limit \(limit)' from a template, but at most \(httpSlots.capacity) http requests "
                            + "run at once (--http-connections); raise it to \(limit)")
                }
                let items = try iterations(of: foreach, in: context.values, id: id)
                // A pattern that matches nothing may be a typo: said, as
                // for `sources` (the group has nothing to do, and succeeds).
                if case .glob(let pattern) = foreach.list, items.count == 0 {
                    let written = (try? interpolator.render(pattern, in: context.values, stepID: id)) ?? pattern.sourceText
                    observer?.warning(secrets.mask("'\(id)': glob(\"\(written)\") matches no file, so it has no iteration (a typo?)"))
                }
                return runForeach(foreach, items: items, id: id, context)
            }.tap { [self] outcome in
                // The list could not be made: the body never ran.
                if case .rejected = outcome { skipSteps(of: foreach.body, in: context) }
            }

        case .conditional(let conditional):
            return firstly { () throws(RunError) -> Promise<Void> in
                let holds = try evaluate(conditional.condition, in: context.values, id: id)
                var branch = context
                branch.key = context.key(ofChild: holds ? 0 : 1)
                if holds {
                    if let otherwise = conditional.otherwise { skipSteps(of: otherwise, in: context) }
                    return runBlock(conditional.then, branch)
                }
                skipSteps(of: conditional.then, in: context)
                guard let otherwise = conditional.otherwise else { return Promise(value: ()) }
                return runBlock(otherwise, branch)
            }
        }
    }

    /// The children of `parallel`, `race` and `any`: each a lane.
    private func runLanes(
        _ lanes: Lanes, dependencies: [[Int]], limit: Int?, rate: Double? = nil, mode: LaneRun.Mode,
        id: String, _ context: ExecutionContext
    ) -> Promise<Void> {
        firstly { () throws(RunError) -> Promise<Void> in
            let values = ValueScope(parent: context.values)
            for variable in lanes.variables {
                let value = try interpolator.render(variable.value, in: values, stepID: id)
                if variable.isSecret { secrets.add(value) }
                values.declare(variable.name, value: value, secret: variable.isSecret)
            }
            for file in lanes.dotenv {
                for (name, value) in try loadDotenv(file) { values.setEnvironment(name, value) }
            }
            for setting in lanes.environment {
                values.setEnvironment(setting.name, try interpolator.render(setting.value, in: values, stepID: id))
            }
            let children = lanes.children
            // Cut down to targets: only the lanes that lead to one (and the
            // siblings those need) run; the others are not selected. An
            // `on-demand` lane runs only when named, or needed by one that runs.
            let courses = selection.lanes(children, dependencies: dependencies, cut: context.cut)
            var chosen = children.indices.map { (index: $0, cut: courses[$0] == .cut) }
            var laneDependencies = dependencies
            if !courses.allSatisfy(\.runs) {
                chosen = chosen.filter { courses[$0.index].runs }
                var position: [Int: Int] = [:]
                for (slot, lane) in chosen.enumerated() { position[lane.index] = slot }
                laneDependencies = chosen.map { lane in
                    (lane.index < dependencies.count ? dependencies[lane.index] : []).compactMap { position[$0] }
                }
                for index in children.indices where position[index] == nil {
                    var lane = context
                    lane.key = context.key(ofChild: index)
                    skipSteps(of: children[index], in: lane, reason: selection.reason(courses[index], for: children[index]))
                }
                // Every lane left out: nothing to wait for (a race or an
                // any of no lanes would not succeed).
                if chosen.isEmpty { return Promise(value: ()) }
            }
            let lanesToRun = chosen
            // `rate N/s`: the k-th lane to start is due k/N s after the group starts.
            let groupStart = clock.now()
            let run = LaneRun(
                count: lanesToRun.count, dependencies: laneDependencies, limit: limit, mode: mode, scope: context.cancel,
                aggregate: { [self] errors, more in aggregate(errors, more: more, group: id, mode: mode) },
                handled: { [self] errors in
                    recorder.markHandled(errors.flatMap(\.failedIDs), by: "any '\(id)' (another lane succeeded)")
                },
                start: { [self] slot, scope in
                    let index = lanesToRun[slot].index
                    var lane = context
                    lane.values = values
                    lane.cancel = scope
                    lane.key = context.key(ofChild: index)
                    lane.cut = lanesToRun[slot].cut
                    return paced(slot, from: groupStart, rate: rate, lane) { [self] paced in runNode(children[index], paced) }
                },
                skip: { [self] slots, _ in
                    for slot in slots {
                        let index = lanesToRun[slot].index
                        var lane = context
                        lane.key = context.key(ofChild: index)
                        skipSteps(of: children[index], in: lane)
                    }
                })
            return run.run()
        }
    }

    /// A foreach (or a repeat): one lane per item, in order (or in
    /// parallel), each an iteration with its own labels, reported as
    /// `label[i]`. An iteration's steps are registered when it starts, so
    /// a run of millions of iterations holds only its running ones (and
    /// the records the reports keep).
    private func runForeach(_ foreach: ForeachGroup, items: Iterations, id: String, _ context: ExecutionContext) -> Promise<Void> {
        // Now that the iterations are known, report them instead of the body.
        unregisterSteps(in: foreach.body, suffix: context.suffix)
        var stepsPerIteration = 0
        forEachNode(in: foreach.body, key: [], suffix: "", group: nil) { node, _, _, _ in
            if case .step = node.kind { stepsPerIteration += 1 }
        }
        if let count = items.count { recorder.plan(count * stepsPerIteration) }
        let perIteration = stepsPerIteration
        let mode: LaneRun.Mode = .all(
            keepGoing: (foreach.parallel && (foreach.keepGoing || configuration.keepGoing))
                || context.countsFailures)
        let limit = foreach.parallel ? laneLimit(of: foreach) : 1
        // `rate N/s`: the k-th iteration is due k/N seconds after the group
        // starts, whatever the earlier ones take (an open model).
        let groupStart = clock.now()
        // `repeat for D` without a rate: no iteration starts after D.
        var mayStart: (@Sendable () -> Bool)?
        if case .open = items, case .duration(let duration) = foreach.repetition {
            let deadline = groupStart + duration
            mayStart = { [clock] in clock.now() < deadline }
        }
        let measure = context.iterationMeasure
        @Sendable func iteration(_ index: Int) -> ExecutionContext {
            var iteration = context
            iteration.iterationMeasure = nil
            iteration.suffix = IterationText.suffix(context.suffix, index: index)
            iteration.key = context.key(ofChild: index)
            return iteration
        }
        // `rate N/s`: an iteration is started when it is due, so that the
        // slots hold only iterations at work.
        let ramp = foreach.ramp
        let schedule = foreach.rate.map { rate in
            LaneRun.Schedule(
                due: { index in ramp.map { groupStart + $0.due(index) } ?? Self.due(index, from: groupStart, rate: rate) },
                clock: timers)
        }
        // Under a rate: how late iterations start, said as the group falls
        // behind its schedule and when it ends behind it.
        let lateness = foreach.rate.map { rate in
            GroupLateness(
                group: id, lanes: !foreach.parallel ? .sequential : foreach.limit.map { .limit($0) } ?? .unlimited,
                peakRate: foreach.ramp?.peak ?? rate,
                planned: foreach.ramp?.total ?? Self.plannedDuration(of: foreach.repetition, count: items.count, rate: rate))
        }
        // A load group's progress: a line every 10 s in a log, and as it
        // ends.
        let progress =
            foreach.repetition != nil || foreach.rate != nil
            ? GroupProgress(
                group: id, planned: items.count,
                plannedDuration: foreach.repetition.flatMap { if case .duration(let d) = $0 { d } else { nil } },
                clock: clock)
            : nil
        if let progress { loads.withLock { $0.append(progress) } }
        let lean = leanIterations(of: foreach, planned: items.count != nil, group: id, in: context)
        // A cookie store an iteration (a virtual user) of a body with http
        // steps, each from the store around the group as it is now.
        let startingCookies: (any Sendable)?? =
            foreach.body.allNodesInOrder.contains(where: \.holdsHTTPStep)
            ? .some((context.cookies ?? runCookies).snapshot()) : nil
        let run = LaneRun(
            count: items.count ?? Int.max, limit: limit, mode: mode, scope: context.cancel, mayStart: mayStart, schedule: schedule,
            skipListed: RunRecorder.recordsPerLabel,
            aggregate: { [self] errors, more in aggregate(errors, more: more, group: id, mode: mode) },
            start: { [self] index, scope in
                var iteration = iteration(index)
                if let lean, lean.isPast() {
                    iteration.unregistered = lean
                } else {
                    registerSteps(in: foreach.body, key: iteration.key, suffix: iteration.suffix, group: id)
                    if items.count != nil { recorder.plan(-perIteration) }
                }
                iteration.values = ValueScope(parent: context.values, item: (foreach.variable, items[index]))
                iteration.cancel = scope
                iteration.cut = false
                if let startingCookies { iteration.cookies = CookieStore(startingFrom: startingCookies) }
                // Its first step's latency runs from its due moment;
                // its progress counts from then, else from its start.
                let started = lateness != nil || progress != nil ? clock.now() : .zero
                var ready = started
                var latencyStart: LatencyStart?
                if let schedule {
                    ready = schedule.due(index)
                    latencyStart = LatencyStart(ready)
                    iteration.latencyStart = latencyStart
                    if let warning = lateness?.started(lateness: started - ready) { observer?.warning(warning) }
                }
                // A lean iteration's one step runs straight when it can.
                let body = iteration.unregistered.flatMap { runLean($0, iteration) } ?? runBlock(foreach.body, iteration)
                guard measure != nil || lateness != nil || progress != nil else { return body }
                return body.tap { [clock, ready, latencyStart] outcome in
                    // When its last step ended (a deferred read learns it late).
                    let now = clock.now() - (latencyStart?.lastEndedEarlier ?? .zero)
                    lateness?.ended(took: now - started)
                    if case .cancelled = outcome { return }
                    measure?.iterationEnded()
                    progress?.ended(failed: !outcome.isFulfilled, latency: now - ready)
                }
            },
            skip: { [self] listed, notStarted in
                // The first iterations that never started are reported as
                // skipped; past as many as a label keeps, they are counted.
                for index in listed {
                    let iteration = iteration(index)
                    registerSteps(in: foreach.body, key: iteration.key, suffix: iteration.suffix, group: id)
                    skipSteps(of: foreach.body, in: iteration)
                }
                recorder.plan(-notStarted * perIteration)
                recorder.countSkipped((notStarted - listed.count) * perIteration)
                if notStarted > 0 { observer?.iterationsNotStarted(group: id, count: notStarted) }
            })
        guard lateness != nil || progress != nil else { return run.run() }
        return run.run().tap { [self] (_: Outcome<Void>) in
            if let warning = lateness?.warning() { observer?.warning(warning) }
            if let progress {
                loads.withLock { $0.removeAll { $0 === progress } }
                observer?.loadGroupEnded(progress.snapshot)
            }
        }
    }

    /// How long a group with a `rate` plans to run: its `for` duration,
    /// or its count over its rate.
    static func plannedDuration(of repetition: Repetition?, count: Int?, rate: Double) -> Duration? {
        if case .duration(let duration) = repetition { return duration }
        guard let count, rate > 0 else { return nil }
        return .nanoseconds(Int64((Double(count) / rate * 1e9).rounded()))
    }

    /// A foreach whose iterations, once a success of its step would be
    /// counted and not kept (its label ran as many times as it keeps
    /// records of, or the run keeps no more successes, having no report
    /// to write), are recorded as they end and not registered as they
    /// start: registering them (a record made, stored, then dropped) is
    /// work nothing reads. Only for a body of one `sh`, `exec`, `http`
    /// or `file` step without `retry` (its attempts are recorded), without
    /// `sources` (up-to-date marks), on this machine (a Slurm job's
    /// record), when nothing shows steps as they start (a console's live
    /// area), and for a process step when no report keeps output tails (a
    /// cancelled one's). nil otherwise.
    private func leanIterations(
        of foreach: ForeachGroup, planned: Bool, group: String,
        in context: ExecutionContext
    ) -> LeanIterations? {
        guard observer?.showsStart(ofAttempt: 1, inGroup: group) != true,
            foreach.body.statements.count == 1, case .node(let node) = foreach.body.statements[0],
            case .step(let step) = node.kind, (node.attributes.retry?.count ?? 0) == 0,
            node.attributes.placement.executor != .slurm,
            let key = LabelStats.key(of: node.id + context.suffix + "[0]")
        else { return nil }
        switch step {
        case .shell(_, let options), .exec(_, let options):
            // A cancelled process's output so far goes to its record
            // through its registration.
            guard options.sources.isEmpty, configuration.reportOutputLimit == 0 else { return nil }
        case .http, .file:
            break
        default:
            return nil
        }
        let shared = UnregisteredStep(
            id: "", label: node.label, kind: step.kindName, summary: summary(of: node, step), key: [],
            group: group, executor: node.isProcessStep ? node.attributes.placement.executor ?? .local : nil,
            planned: planned, statsKey: key)
        return LeanIterations(node: node, step: step, statsKey: key, recorder: recorder, shared: shared)
    }

    /// How many iterations of a parallel foreach run at once: its
    /// `limit`, and no more than its slots allow when its body is one step
    /// that takes them (a `foreach ... parallel { sh ... }` under `-j 8`
    /// runs 8 iterations, not 1,000 of which 992 wait in the slots' queue:
    /// the same steps start in the same order, and an iteration that never
    /// started is skipped as before). Not under a `rate` (its iterations
    /// start when due), nor for a step with `retry` (it gives its slot
    /// back between attempts).
    private func laneLimit(of foreach: ForeachGroup) -> Int? {
        guard foreach.rate == nil, foreach.body.statements.count == 1, case .node(let node) = foreach.body.statements[0],
            case .step(let step) = node.kind, (node.attributes.retry?.count ?? 0) == 0,
            let (slots, count) = slotDemand(node, step)
        else { return foreach.limit }
        let fit = max(1, slots.capacity / count)
        return min(foreach.limit ?? fit, fit)
    }

    /// When lane or iteration `index` of a group with `rate` per second
    /// is due: `index / rate` seconds after the group started.
    static func due(_ index: Int, from groupStart: Duration, rate: Double) -> Duration {
        groupStart + .nanoseconds(Int64((Double(index) / rate * 1e9).rounded()))
    }

    /// The clock a schedule's timers run on: the system clock's timers go
    /// through a pool and may fire a millisecond late, so a pacer's thread
    /// starts due work on time instead (tests' clocks stay theirs).
    var timers: any PromiseClock { clock is SystemClock ? Pacer.shared : clock }

    /// Starts lane or iteration `index` of a group with a `rate`: when it
    /// is due, `index / rate` seconds after `groupStart`, its latency
    /// running from then. At once without a rate.
    func paced(
        _ index: Int, from groupStart: Duration, rate: Double?, _ context: ExecutionContext,
        _ body: @escaping @Sendable (ExecutionContext) -> Promise<Void>
    ) -> Promise<Void> {
        guard let rate else { return body(context) }
        var scheduled = context
        let due = Self.due(index, from: groupStart, rate: rate)
        scheduled.latencyStart = LatencyStart(due)
        let wait = due - clock.now()
        guard wait > .zero else { return body(scheduled) }
        let ready = scheduled
        return after(wait, clock: timers).then { () -> Promise<Void> in body(ready) }
    }

    /// One error standing for several failures of a group: those kept, and
    /// `more` counted past them.
    private func aggregate(_ errors: [RunError], more: Int, group id: String, mode: LaneRun.Mode) -> RunError {
        guard var first = errors.first else {
            return RunError(stepID: id, kind: .fail, message: "\(id) failed")
        }
        let total = errors.count + more
        guard total > 1 else { return first }
        // The message names the next few; the error keeps every one kept.
        let named = errors.dropFirst().prefix(10).map(\.stepID)
        var others = named.joined(separator: ", ")
        if total - 1 > named.count { others += " and \(total - 1 - named.count) more" }
        switch mode {
        case .any:
            first.message = "every lane of \(id) failed; first: \(first.message) (also: \(others))"
        case .all, .race:
            first.message = "\(total) steps of \(id) failed; first: \(first.message) (also: \(others))"
        }
        first.others = Array(errors.dropFirst())
        return first
    }
}
