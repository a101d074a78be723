import PromiseEngine
import WorkflowModel

extension WorkflowExecutor {
    /// A group (spec §4). `context.key` is the group's position.
    func runGroup(_ group: Group, _ node: Node, _ context: ExecutionContext) -> Promise<Void> {
        let id = node.id + context.suffix
        switch group {
        case .sequence(let block):
            return runBlock(block, context)

        case .parallel(let parallel):
            return runLanes(parallel.lanes, dependencies: parallel.dependencies, limit: parallel.limit,
                            mode: .all(keepGoing: parallel.keepGoing || configuration.keepGoing), id: id, context)

        case .race(let lanes):
            return runLanes(lanes, dependencies: [], limit: nil, mode: .race, id: id, context)

        case .any(let lanes):
            return runLanes(lanes, dependencies: [], limit: nil, mode: .any, id: id, context)

        case .foreach(let foreach):
            return firstly { () throws(RunError) -> Promise<Void> in
                let items = try evaluate(foreach.list, in: context.values, id: id)
                return runForeach(foreach, items: items, id: id, context)
            }.tap { [self] outcome in
                // The list could not be made: the body never ran.
                if case .rejected = outcome { skipSteps(of: foreach.body, in: context) }
            }

        case .conditional(let conditional):
            return firstly { () throws(RunError) -> Promise<Void> in
                let holds = try evaluate(conditional.condition, in: context.values, id: id)
                var branch = context
                branch.key = context.key + [holds ? 0 : 1]
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
    private func runLanes(_ lanes: Lanes, dependencies: [[Int]], limit: Int?, mode: LaneRun.Mode,
                          id: String, _ context: ExecutionContext) -> Promise<Void> {
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
            // siblings those need) run; the others are not selected.
            var chosen = children.indices.map { (index: $0, cut: false) }
            var laneDependencies = dependencies
            if let selection = context.selection {
                chosen = selection.lanes(children, dependencies: dependencies)
                var position: [Int: Int] = [:]
                for (slot, lane) in chosen.enumerated() { position[lane.index] = slot }
                laneDependencies = chosen.map { lane in
                    (lane.index < dependencies.count ? dependencies[lane.index] : []).compactMap { position[$0] }
                }
                for index in children.indices where position[index] == nil {
                    var lane = context
                    lane.key = context.key + [index]
                    skipSteps(of: children[index], in: lane, reason: TargetSelection.notSelected)
                }
            }
            let lanesToRun = chosen
            let run = LaneRun(
                count: lanesToRun.count, dependencies: laneDependencies, limit: limit, mode: mode, scope: context.cancel,
                aggregate: { [self] errors in aggregate(errors, group: id, mode: mode) },
                handled: { [self] errors in
                    recorder.markHandled(errors.flatMap(\.failedIDs), by: "any '\(id)' (another lane succeeded)")
                },
                start: { [self] slot, scope in
                    let index = lanesToRun[slot].index
                    var lane = context
                    lane.values = values
                    lane.cancel = scope
                    lane.key = context.key + [index]
                    if !lanesToRun[slot].cut { lane.selection = nil }
                    return runNode(children[index], lane)
                },
                skip: { [self] slots in
                    for slot in slots {
                        let index = lanesToRun[slot].index
                        var lane = context
                        lane.key = context.key + [index]
                        skipSteps(of: children[index], in: lane)
                    }
                })
            return run.run()
        }
    }

    /// A foreach: one lane per item, in order (or in parallel), each an
    /// iteration with its own labels, reported as `label[i]`.
    private func runForeach(_ foreach: ForeachGroup, items: [String], id: String, _ context: ExecutionContext) -> Promise<Void> {
        // Now that the iterations are known, report them instead of the body.
        unregisterSteps(in: foreach.body, suffix: context.suffix)
        for index in items.indices {
            registerSteps(in: foreach.body, key: context.key + [index], suffix: context.suffix + "[\(index)]", group: id)
        }
        let mode: LaneRun.Mode = .all(keepGoing: foreach.parallel && (foreach.keepGoing || configuration.keepGoing))
        let limit = foreach.parallel ? foreach.limit : 1
        // `rate N/s`: the k-th iteration is due k/N seconds after the group
        // starts, whatever the earlier ones take (an open model).
        let groupStart = clock.now()
        let rate = foreach.rate
        let run = LaneRun(
            count: items.count, limit: limit, mode: mode, scope: context.cancel,
            aggregate: { [self] errors in aggregate(errors, group: id, mode: mode) },
            start: { [self] index, scope in
                var iteration = context
                iteration.values = ValueScope(parent: context.values, isLabelScope: true)
                iteration.values.declare(foreach.variable, value: items[index])
                iteration.cancel = scope
                iteration.suffix = context.suffix + "[\(index)]"
                iteration.key = context.key + [index]
                iteration.selection = nil
                guard let rate else { return runBlock(foreach.body, iteration) }
                let due = groupStart + .nanoseconds(Int64((Double(index) / rate * 1e9).rounded()))
                iteration.latencyStart = LatencyStart(due)
                let wait = due - clock.now()
                guard wait > .zero else { return runBlock(foreach.body, iteration) }
                let scheduled = iteration
                return after(wait, clock: clock).then { [self] () -> Promise<Void> in runBlock(foreach.body, scheduled) }
            },
            skip: { [self] indices in
                for index in indices {
                    var iteration = context
                    iteration.suffix = context.suffix + "[\(index)]"
                    skipSteps(of: foreach.body, in: iteration)
                }
            })
        return run.run()
    }

    /// One error standing for several failures of a group.
    private func aggregate(_ errors: [RunError], group id: String, mode: LaneRun.Mode) -> RunError {
        guard var first = errors.first else {
            return RunError(stepID: id, kind: .fail, message: "\(id) failed")
        }
        guard errors.count > 1 else { return first }
        let others = errors.dropFirst().map(\.stepID).joined(separator: ", ")
        switch mode {
        case .any:
            first.message = "every lane of \(id) failed; first: \(first.message) (also: \(others))"
        case .all, .race:
            first.message = "\(errors.count) steps of \(id) failed; first: \(first.message) (also: \(others))"
        }
        first.others = Array(errors.dropFirst())
        return first
    }
}
