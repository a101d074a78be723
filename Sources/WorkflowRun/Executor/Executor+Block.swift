import PromiseEngine
import RunnerSystem
import WorkflowModel

extension WorkflowExecutor {
    /// A block is a promise chain: a statement starts when the
    /// chain before it succeeded; after a failure statements are skipped
    /// until a catch; a catch handles a failure (of its kinds) and the chain
    /// goes on; an ensure runs whatever happened and keeps the state.
    func runBlock(_ block: Block, _ outer: ExecutionContext) -> Promise<Void> {
        var context = outer
        // A scope of its own only for a block that declares something
        // (results go to the label scope above it either way).
        if block.statements.contains(where: \.declares) { context.values = ValueScope(parent: outer.values) }
        let values = context.values
        // One step or group, nothing to cut or leave out (a foreach of one
        // request): the node's own promise is the block's.
        if !outer.cut, block.statements.count == 1, case .node(let node) = block.statements[0], !node.attributes.onDemand {
            var position = context
            position.key = context.key(ofChild: 0)
            guard !position.cancel.isCancelled else {
                skipSteps(of: node, in: position)
                return .cancelled()
            }
            return runNode(node, position)
        }
        var chain = Promise<Void>(value: ())
        // Cut down to targets: the statements before the last one that
        // leads to a target run whole; that one runs cut (or whole, when it
        // is a target); the rest are not selected. An `on-demand` node runs
        // only when a target names it or is inside it.
        let cutPoint = selection.cutPoint(of: block, cut: outer.cut)
        for (index, statement) in block.statements.enumerated() {
            var position = context
            position.key = context.key(ofChild: index)
            // What is not the statement that leads to a target runs whole.
            position.cut = false
            switch statement {
            case .node(let node):
                let course = selection.course(of: node, at: index, cutAt: cutPoint)
                guard course.runs else {
                    skipSteps(of: node, in: position, reason: selection.reason(course, for: node))
                    continue
                }
                position.cut = course == .cut
            case .environment, .variable, .dotenv:
                if let cutPoint, index > cutPoint { continue }
            case .catch, .ensure:
                break
            }
            let here = position
            switch statement {
            case .node(let node):
                chain = chain.derive(
                    .inline,
                    .outcome { [self] outcome in
                        guard outcome.isFulfilled, !here.cancel.isCancelled else {
                            skipSteps(of: node, in: here)
                            return .outcome(outcome.isFulfilled ? .cancelled : outcome)
                        }
                        return .promise(runNode(node, here))
                    })
            case .catch(let clause):
                chain = chain.derive(
                    .inline,
                    .outcome { [self] outcome in
                        if case .rejected(let failure) = outcome, !here.cancel.isCancelled {
                            let error = failure as? RunError ?? RunError(stepID: "?", kind: .fail, message: "\(failure)")
                            if clause.kinds.isEmpty || clause.kinds.contains(error.kind) {
                                var inner = here
                                inner.values = ValueScope(parent: values, caught: error)
                                // A catch that ends well handled the failure:
                                // reports show it apart from the run's failures.
                                return .promise(
                                    runBlock(clause.body, inner).tap { [self] outcome in
                                        if outcome.isFulfilled {
                                            recorder.markHandled(error.failedIDs, by: "catch at \(Self.place(clause.location))")
                                        }
                                    })
                            }
                        }
                        skipSteps(of: clause.body, in: here)
                        return .outcome(outcome)
                    })
            case .ensure(let body):
                chain = chain.derive(
                    .inline,
                    .outcome { [self] outcome in
                        // Detached: the cancellation that may have brought us
                        // here must not stop the cleanup.
                        let shielded = CancelScope()
                        var inner = here
                        inner.cancel = shielded
                        let cleanup = runBlock(body, inner)
                        return .promise(
                            cleanup.derive(
                                .inline,
                                .outcome { cleanupOutcome in
                                    switch (outcome, cleanupOutcome) {
                                    case (.fulfilled, _):
                                        return .outcome(cleanupOutcome)
                                    case (.rejected(let first), .rejected(let second)):
                                        guard var error = first as? RunError, let other = second as? RunError else { return .outcome(outcome) }
                                        error.others.append(other)
                                        return .outcome(.rejected(error))
                                    default:
                                        return .outcome(outcome)
                                    }
                                }))
                    })
            case .environment(let setting):
                chain = chain.then { [self] () throws(RunError) -> Promise<Void> in
                    let value = try interpolator.render(setting.value, in: values, stepID: "env \(setting.name)")
                    values.setEnvironment(setting.name, value)
                    return Promise(value: ())
                }
            case .dotenv(let file):
                chain = chain.then { [self] () throws(RunError) -> Promise<Void> in
                    for (name, value) in try loadDotenv(file) { values.setEnvironment(name, value) }
                    return Promise(value: ())
                }
            case .variable(let variable):
                chain = chain.then { [self] () throws(RunError) -> Promise<Void> in
                    let value = try interpolator.render(variable.value, in: values, stepID: "var \(variable.name)")
                    if variable.isSecret { secrets.add(value) }
                    values.declare(variable.name, value: value, secret: variable.isSecret)
                    return Promise(value: ())
                }
            }
        }
        return chain
    }

    /// The pairs of a `dotenv` file (relative to the workflow's folder):
    /// none when it is missing and optional; kind `file` when it is missing
    /// or has a line that is not `NAME=VALUE` (saying where).
    func loadDotenv(_ file: DotenvFile) throws(RunError) -> [(name: String, value: String)] {
        let id = "dotenv \(file.path)"
        let path = Paths.absolute(file.path, from: directory)
        let text: String
        switch FileSystem.readText(path) {
        case .success(let read): text = read
        case .failure(let error):
            let missing = !FileSystem.exists(path)
            if file.optional, missing { return [] }
            throw RunError(
                stepID: id, kind: .file,
                message: "dotenv \(file.path): \(error.reason)"
                    + (missing ? " (write 'dotenv \"\(file.path)\" optional' if it may be absent)" : ""))
        }
        do {
            return try Dotenv.parse(text, path: file.path)
        } catch {
            throw RunError(stepID: id, kind: .file, message: "\(error)")
        }
    }

    /// A node: a step, or a group with its timeout and retry.
    func runNode(_ node: Node, _ context: ExecutionContext) -> Promise<Void> {
        switch node.kind {
        case .step(let step):
            return runStep(node, step, context)
        case .group(let group):
            let id = node.id + context.suffix
            return withRetry(node.attributes.retry, in: context) { [self] _ in
                recorder.startGroup(id)
                return limit(timeout: node.attributes.timeout, id: id, in: context) { inner in
                    firstly { () throws(RunError) -> Promise<Void> in
                        var inner = inner
                        if !node.attributes.environment.isEmpty {
                            let values = ValueScope(parent: inner.values)
                            for setting in node.attributes.environment {
                                values.setEnvironment(setting.name, try self.interpolator.render(setting.value, in: inner.values, stepID: id))
                            }
                            inner.values = values
                        }
                        guard !node.attributes.thresholds.isEmpty else { return self.runGroup(group, node, inner) }
                        return self.runMeasured(group, node, id: id, inner)
                    }
                }
            }.tap { [self] outcome in
                switch outcome {
                case .fulfilled:
                    recorder.finishGroup(id, status: .succeeded)
                case .rejected(let error):
                    // Its own failure (a timeout, a list that could not be
                    // made) is the group's; one from a step inside is the step's.
                    let own = (error as? RunError).flatMap { $0.stepID == id ? StepFailure($0.kind, $0.message) : nil }
                    recorder.finishGroup(id, status: .failed, failure: own, allowedFailure: node.attributes.allowFailure)
                case .cancelled:
                    recorder.finishGroup(id, status: .cancelled)
                }
            }.derive(
                .inline,
                .outcome { [self] outcome in
                    // `allow-failure`: the failure is reported; the chain goes on.
                    if node.attributes.allowFailure, case .rejected(let error) = outcome {
                        if let error = error as? RunError {
                            recorder.markHandled(error.failedIDs, by: "allow-failure of \(node.label.map { "'\($0)'" } ?? id)")
                        }
                        return .outcome(.fulfilled(()))
                    }
                    return .outcome(outcome)
                })
        }
    }

    /// A group with thresholds: it measures the steps inside it
    /// and checks each threshold when it ends, failing with kind `expect`
    /// and the measured value when one does not hold. With an `expect
    /// failures` threshold, the groups inside run as with keep-going and
    /// the failures of its steps do not fail it by themselves.
    private func runMeasured(_ group: Group, _ node: Node, id: String, _ context: ExecutionContext) -> Promise<Void> {
        let thresholds = node.attributes.thresholds
        let iterates = group.kind == .foreach || group.kind == .repeat
        let measure = GroupMeasure(thresholds: thresholds, started: clock.now(), countsIterations: iterates)
        let countsFailures = thresholds.contains(where: \.countsFailures)
        var inner = context
        inner.measures.append(measure)
        if iterates { inner.iterationMeasure = measure }
        if countsFailures { inner.countsFailures = true }
        return runGroup(group, node, inner).derive(
            .inline,
            .outcome { [self] outcome in
                if case .cancelled = outcome { return .outcome(.cancelled) }
                // A group that failed as it started (its list or its load
                // shape could not be made) ran nothing to judge: its
                // thresholds are not checked, as for a skipped group.
                if case .rejected(let error) = outcome, let failure = error as? RunError, failure.stepID == id,
                    failure.kind != .timeout, measure.measuredNothing
                {
                    return .outcome(outcome)
                }
                let results = measure.check(now: clock.now())
                recorder.checkedThresholds(results, group: id)
                if case .rejected(let error) = outcome {
                    // The group's own failure (its list could not be made), or
                    // a step's without a failures threshold: the usual rules.
                    guard countsFailures, let failure = error as? RunError, failure.stepID != id else { return .outcome(outcome) }
                    recorder.markHandled(failure.failedIDs, by: "the thresholds of \(node.label.map { "'\($0)'" } ?? id)")
                }
                let failing = results.filter { !$0.holds }
                guard !failing.isEmpty else { return .outcome(.fulfilled(())) }
                return .outcome(.rejected(RunError(stepID: id, kind: .expect, message: failing.map(\.message).joined(separator: "; "))))
            })
    }

    /// `line 12`, or `lib/build.workflow:12` in an included file.
    static func place(_ location: SourcePosition) -> String {
        location.file.map { "\($0):\(location.line)" } ?? "line \(location.line)"
    }
}

extension Statement {
    /// Whether the statement adds to its block's values (`var`, `secret`,
    /// `env`, `dotenv`).
    fileprivate var declares: Bool {
        switch self {
        case .variable, .environment, .dotenv: return true
        case .node, .catch, .ensure: return false
        }
    }
}
