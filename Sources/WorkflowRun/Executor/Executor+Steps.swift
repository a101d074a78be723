import PromiseEngine
import RunnerSystem
import WorkflowModel

extension WorkflowExecutor {
    /// A step with its retries. The record is finished once, after the last
    /// attempt; a step that never started is skipped.
    func runStep(_ node: Node, _ step: Step, _ context: ExecutionContext) -> Promise<Void> {
        let id = IterationText.joined(node.id, context.suffix)
        let unregistered = context.unregistered?.step(id: id, key: context.key)
        guard !context.cancel.isCancelled else {
            if let unregistered {
                recorder.finishUnregistered(unregistered, status: .skipped, startedAt: nil, duration: nil)
            } else {
                recorder.skip([id])
            }
            return .cancelled()
        }
        // An unregistered step's record says when it was let start.
        let startedAt = unregistered == nil ? nil : WallClock.now()
        // Latency runs from when the step was ready (its slots' waits
        // inside), or from its iteration's scheduled start.
        let due = context.latencyStart?.take()
        let ready = due ?? clock.now()
        // How late the schedule started it (its slot waits inside).
        let lateness = due.map { clock.now() - $0 }
        let retried = (node.attributes.retry?.count ?? 0) > 0
        let attemptsAllowed = (node.attributes.retry?.count ?? 0) + 1
        let timeout = node.attributes.timeout
        let ending = StepEnding(
            node: node, step: step, id: id, context: context, ready: ready, lateness: lateness,
            unregistered: unregistered, startedAt: startedAt, retried: retried, storesResult: true)
        // How the step ends, for the records and the chain: applied in the
        // attempt's own last link when there is one attempt (no promise more).
        let finish: @Sendable (Outcome<StepResult?>) -> Outcome<Void> = { [self] outcome in self.finish(outcome, ending) }
        guard retried else { return runAttempt(node, step, id, context, finishing: finish) }
        let attempts = withRetry(node.attributes.retry, timeout: timeout, in: context) { [self] number in
            let attempt = runAttempt(node, step, id, context) { $0 }
            // Each attempt is kept for the reports: when it started, how
            // it ended and why (and the wait a Retry-After asked for).
            return attempt.tap { [self] outcome in
                switch outcome {
                case .fulfilled(let result):
                    recorder.attemptEnded(id, status: .succeeded, result: result)
                case .rejected(let error):
                    let wait = number < attemptsAllowed ? RetryAfter.wait(after: error, cap: timeout, now: WallClock.now()) : nil
                    recorder.attemptEnded(id, status: .failed, failure: describe(error, step: id).1, retryAfter: wait?.duration)
                    if let wait { observer?.retryWaiting(step: id, for: wait.duration, capped: wait.capped) }
                case .cancelled:
                    recorder.attemptEnded(id, status: .cancelled)
                }
            }
        }
        return attempts.derive(.inline, .outcome { .outcome(finish($0)) })
    }

    /// One attempt. Steps that reach outside wait for their slot (`-j`,
    /// `--http-connections`) first: a waiting step is not running, and its
    /// timeout has not started.
    ///
    /// - Parameter finishing: how the attempt's outcome ends its promise,
    ///   applied in the attempt's last link (the step's end, when it has
    ///   one attempt).
    private func runAttempt<Output: Sendable>(
        _ node: Node, _ step: Step, _ id: String, _ context: ExecutionContext,
        finishing: @escaping @Sendable (Outcome<StepResult?>) -> Outcome<Output>
    ) -> Promise<Output> {
        switch step {
        case .log(let template):
            return firstly { () throws(RunError) -> Promise<StepResult?> in
                recorder.start(id)
                let text = secrets.mask(try interpolator.render(template, in: context.values, stepID: id))
                recorder.logged(id, message: text)
                observer?.log(text, step: id)
                return Promise(value: nil)
            }.derive(.inline, .outcome { .outcome(finishing($0)) })
        case .fail(let template):
            return firstly { () throws -> Promise<StepResult?> in
                recorder.start(id)
                let text = try interpolator.render(template, in: context.values, stepID: id)
                throw StepFailure(.fail, text)
            }.derive(.inline, .outcome { .outcome(finishing($0)) })
        case .rethrow:
            return firstly { () throws -> Promise<StepResult?> in
                recorder.start(id)
                guard var caught = context.values.caughtError else {
                    throw StepFailure(.fail, "rethrow outside a catch")
                }
                caught.passedOnBy.append(id)
                throw caught
            }.derive(.inline, .outcome { .outcome(finishing($0)) })
        case .sleep(let duration):
            recorder.start(id)
            let sleeping = after(duration, clock: clock)
            return cancellable(sleeping, timeout: node.attributes.timeout, in: context, finishing: finishing) { _ in nil }
        case .shell, .exec, .http, .file:
            guard let (slots, count) = slotDemand(node, step) else {
                return start(node, step, id, context, release: nil, finishing: finishing)
            }
            // Free slots (a group's limit at or under them): taken at once,
            // with no claim and no promise to wait on.
            if let taken = slots.take(count: count) {
                return start(node, step, id, context, release: { slots.giveBack(taken) }, finishing: finishing)
            }
            let lease = slots.lease(count: count, in: context.cancel)
            return lease.granted.then { [self] () -> Promise<StepResult?> in
                start(node, step, id, context, release: nil) { $0 }
            }.ensure { lease.release() }.derive(.inline, .outcome { .outcome(finishing($0)) })
        }
    }

    /// The slots a step takes while it runs, and how many: a process step
    /// on this machine `cpus` of the `-j` slots, on Slurm one of the
    /// `--slurm-jobs`; an `http` step one of the
    /// `--http-connections`. None for the others.
    func slotDemand(_ node: Node, _ step: Step) -> (slots: Slots, count: Int)? {
        switch step {
        case .shell, .exec:
            let placement = node.attributes.placement
            if placement.executor == .slurm { return (slurmSlots, 1) }
            return (processSlots, min(max(1, placement.cpus ?? 1), processSlots.capacity))
        case .http:
            return (httpSlots, 1)
        default:
            return nil
        }
    }

    /// A step that reaches outside, once it holds its slots: resolved,
    /// recorded as started, run (from the store or the shared cache when
    /// it is up to date), cancellable. `release` (the slots taken without
    /// a claim) runs exactly once, as the attempt ends.
    private func start<Output: Sendable>(
        _ node: Node, _ step: Step, _ id: String, _ context: ExecutionContext,
        release: (@Sendable () -> Void)?,
        finishing: @escaping @Sendable (Outcome<StepResult?>) -> Outcome<Output>
    ) -> Promise<Output> {
        // The group may have been cancelled while this step waited.
        guard !context.cancel.isCancelled else {
            release?()
            return Promise(outcome: finishing(.cancelled))
        }
        let running: Promise<StepResult>
        do {
            running = try launch(node, step, id, context)
        } catch {
            release?()
            return Promise(outcome: finishing(.rejected(error)))
        }
        return cancellable(running, timeout: node.attributes.timeout, in: context, ending: release, finishing: finishing) { $0 }
    }

    /// A step that reaches outside, its slots held: resolved, recorded as
    /// started (when registered), checked, and run (from the store or the
    /// shared cache when it is up to date). Throws what stops it first.
    func launch(_ node: Node, _ step: Step, _ id: String, _ context: ExecutionContext) throws -> Promise<StepResult> {
        let resolved: ResolvedStep
        do {
            resolved = try resolve(step, id: id, node: node, in: context.values)
        } catch {
            if context.unregistered == nil { recorder.start(id) }
            throw error
        }
        if context.unregistered == nil { recorder.start(id, resolved: resolved) }
        // A step recorded only as it ends is never shown running, nor its
        // transfer's progress (`leanIterations`).
        let (made, given) = try makeStepContext(node, id: id, in: context.values, showsTransfer: context.unregistered == nil)
        var stepContext = made
        if case .http = step {
            stepContext.cookies = context.cookies ?? runCookies
            if let wire = configuration.wire {
                stepContext.wire = { [secrets] text in wire("* \(id)\n" + secrets.mask(text)) }
            }
        }
        if let refused = NulBytes.failure(in: resolved, folder: stepContext.workingDirectory, environment: given, id: id) {
            throw refused
        }
        if case .file(.delete(let written)) = step, case .file(.delete(let path)) = resolved,
            let refusal = DeleteGuard.refusal(
                written: written, resolved: path, stepFolder: stepContext.workingDirectory,
                workflowFolder: directory)
        {
            throw RunError(stepID: id, kind: .file, message: "file delete " + secrets.mask(refusal))
        }
        return incremental(resolved, node: node, id: id, in: stepContext, values: context.values, given: given)
            ?? ranAnyway(resolved, in: stepContext)
    }

    /// A step with nothing to decide up to date: it runs, and the run is
    /// no no-op (the dependency journal stops).
    private func ranAnyway(_ step: ResolvedStep, in context: StepContext) -> Promise<StepResult> {
        DependencyJournal.shared.taint("a step ran")
        return runner.run(step, in: context)
    }

    /// A process step with `sources`: its stored result
    /// when it is up to date (and not `--force`d); else the run, whose
    /// success stores the new fingerprint, its outputs and what its
    /// depfile lists. Nil for a step without `sources`. `given`: the
    /// environment the workflow gives the step (`env`, `--env-file`); the
    /// inherited variables it names in `env-inputs` join it, and nothing
    /// else inherited counts.
    private func incremental(
        _ step: ResolvedStep, node: Node, id: String, in context: StepContext, values: ValueScope,
        given: [String: String]
    ) -> Promise<StepResult>? {
        let process: ResolvedProcessOptions
        switch step {
        case .shell(_, let options), .exec(_, let options): process = options
        default: return nil
        }
        if !process.generates.isEmpty { configuration.generated?.add(process.generates, base: context.workingDirectory) }
        guard !process.sources.isEmpty else { return nil }
        var environment = given
        for name in process.environmentInputs {
            // Unset and empty differ to a script (`${X-default}`).
            DependencyJournal.shared.noteEnvironment(name, context.environment[name])
            environment["env-inputs " + name] = context.environment[name].map { "=" + $0 } ?? "unset"
        }
        let store = self.store
        let runner = self.runner
        let recorder = self.recorder
        let hashes = store.hashes
        let folder = context.workingDirectory
        let relativeFolder = CacheKey.relative(folder, to: directory)
        let storeID = IncrementalStore.key(node.id, items: values.enclosingItems)
        let computed = Fingerprint.compute(
            step: step, workingDirectory: folder, workflowDirectory: directory,
            environment: environment, hashes: hashes)
        for pattern in computed.unmatched { warnUnmatched(pattern, step: id, in: folder) }
        let fingerprint = computed.hex
        if !configuration.force, let entry = store.load(id: storeID), entry.fingerprint == fingerprint,
            Fingerprint.missingOutputs(step, workingDirectory: folder).isEmpty,
            Fingerprint.intact(entry.outputs, workingDirectory: folder, hashes: hashes),
            Fingerprint.intact(entry.discovered, workingDirectory: folder, hashes: hashes)
        {
            recorder.markUpToDate(id, from: .local)
            return Promise(value: entry.result)
        }
        // It runs (or comes from the shared cache): the run is no no-op.
        DependencyJournal.shared.taint("a step ran")
        // A success whose output or captures hold a secret is kept by
        // neither the store nor the cache (their files are plain JSON, the
        // cache's shared): it runs every time, and says so.
        let storable: @Sendable (StepResult) -> Bool = { [secrets, observer] result in
            guard secrets.appear(in: result) else { return true }
            observer?.warning(
                "\(id): its output or captures hold a secret value, so it is not stored in the incremental store "
                    + "or the shared cache; it runs every time")
            return false
        }
        // After a success: stored with its outputs and what its depfile
        // lists (returned, for the shared cache); a depfile that cannot be
        // read is said, nothing is stored, and the step runs next time.
        let start = StatCache.now()
        let remember: @Sendable (StepResult) -> [String: String]? = { [observer] result in
            var discovered: [String: String] = [:]
            if let depfile = process.depfile {
                switch Fingerprint.discovered(depfile: depfile, workingDirectory: folder, hashes: hashes, started: start) {
                case .success(let found): discovered = found
                case .failure(let problem):
                    observer?.warning("\(id): \(problem.reason); it runs again next time")
                    store.forget(id: storeID)
                    return nil
                }
            }
            store.save(
                id: storeID, fingerprint: fingerprint, result: result, folder: relativeFolder, files: computed.files,
                outputs: Fingerprint.outputs(step, workingDirectory: folder, hashes: hashes), discovered: discovered)
            return discovered
        }
        guard let cache = configuration.cache,
            let key = cache.key(for: step, workflowDirectory: directory, workingDirectory: folder, environment: environment)
        else {
            return runner.run(step, in: context).tap { outcome in
                switch outcome {
                case .fulfilled(let result) where storable(result): _ = remember(result)
                case .fulfilled: break
                // What it wrote may be half done: the next run runs it.
                case .rejected, .cancelled: store.forget(id: storeID)
                }
            }
        }
        // A key the shared cache has is restored, not run; a
        // success is stored in it. `--force` runs, and stores.
        let staging = Paths.join(directory, ".promise-run/cache")
        let run: @Sendable () -> Promise<StepResult> = {
            runner.run(step, in: context).tap { outcome in
                switch outcome {
                case .fulfilled(let result) where storable(result):
                    guard let discovered = remember(result) else { break }
                    cache.save(
                        key, result: result, generates: process.generates, folder: folder, staging: staging, step: id,
                        discovered: discovered)
                case .fulfilled: break
                case .rejected, .cancelled: store.forget(id: storeID)
                }
            }
        }
        if configuration.force { return run() }
        let protectedFiles = Set(
            ([workflow.source.path] + workflow.source.segments.map(\.file.path)).map { path in
                Paths.normalized(Paths.absolute(path, from: configuration.currentDirectory))
            })
        return cache.lookup(key, step: id, staging: staging).then { entry -> Promise<StepResult> in
            // Built against other prerequisites than this checkout's (a
            // header its depfile listed differs here): run, and store anew.
            guard let entry, Fingerprint.intact(entry.discovered, workingDirectory: folder, hashes: hashes) else { return run() }
            return cache.restore(
                entry, into: folder, generates: process.generates, protected: protectedFiles,
                step: id
            ).then { restored -> Promise<StepResult> in
                guard restored else { return run() }
                recorder.markUpToDate(id, from: .cache)
                store.save(
                    id: storeID, fingerprint: fingerprint, result: entry.result, folder: relativeFolder, files: computed.files,
                    outputs: Fingerprint.outputs(step, workingDirectory: folder, hashes: hashes), discovered: entry.discovered)
                return Promise(value: entry.result)
            }
        }
    }

    /// Cancels `work` when the scope is cancelled or its timeout expires; a
    /// timeout becomes a failure of kind `timeout` once the work stopped.
    /// Its value goes through `transform`, and the outcome through
    /// `finishing` (in the same link of the chain). `ending` runs first
    /// when the work ends, in that same link.
    private func cancellable<Value, Output: Sendable>(
        _ work: Promise<Value>, timeout: Duration?, in context: ExecutionContext, ending: (@Sendable () -> Void)? = nil,
        finishing: @escaping @Sendable (Outcome<StepResult?>) -> Outcome<Output>,
        _ transform: @escaping @Sendable (Value) -> StepResult?
    ) -> Promise<Output> {
        let registration = context.cancel.onCancel { work.cancel() }
        // Most steps have no timeout: no flag, no timer.
        let flag = timeout == nil ? nil : TimeoutFlag()
        let timer = timeout.map { limit in
            clock.schedule(after: limit) {
                flag?.fire()
                work.cancel()
            }
        }
        return work.derive(
            .inline,
            .outcome { outcome in
                ending?()
                timer?.cancel()
                context.cancel.removeHandler(registration)
                if let timeout, let flag, flag.fired, !outcome.isFulfilled {
                    return .outcome(finishing(.rejected(StepFailure(.timeout, "timed out after \(DurationText.format(timeout))"))))
                }
                return .outcome(finishing(outcome.map(transform)))
            })
    }

    /// The failure as it travels (`RunError`) and as it is recorded.
    func describe(_ error: any Error, step id: String) -> (RunError, StepFailure) {
        switch error {
        case let failure as StepFailure:
            let message = secrets.mask(failure.message)
            return (
                RunError(stepID: id, kind: failure.kind, message: message, exitCode: failure.result?.exitCode),
                failure
            )
        case let runError as RunError:
            // A rethrow passes the caught error on unchanged.
            return (runError, StepFailure(runError.kind, runError.message))
        default:
            let message = secrets.mask("\(error)")
            return (RunError(stepID: id, kind: .fail, message: message), StepFailure(.fail, message))
        }
    }

    /// Where a process or file step runs, with which environment; and the
    /// part of that environment the workflow gives it (`--env-file`,
    /// block and step `env`), which a fingerprint covers. `showsTransfer`:
    /// the observer hears of the step's bytes as they come (the live
    /// area's progress of a running step).
    private func makeStepContext(_ node: Node, id: String, in values: ValueScope, showsTransfer: Bool) throws(RunError)
        -> (StepContext, given: [String: String])
    {
        var environment = configuration.environment
        var given = configuration.fileEnvironment
        // Only processes read the environment and print output: an http or
        // file step (thousands a second under a rate) skips building them.
        let isProcess = node.isProcessStep
        for setting in isProcess ? values.environment : [] {
            environment[setting.name] = setting.value
            given[setting.name] = setting.value
        }
        for setting in node.attributes.environment {
            let value = try interpolator.render(setting.value, in: values, stepID: id)
            environment[setting.name] = value
            given[setting.name] = value
        }
        var folder = directory
        if let cwd = node.attributes.cwd {
            folder = Paths.absolute(try interpolator.render(cwd, in: values, stepID: id), from: directory)
        }
        var transfer: (@Sendable (Int64, Int64?) -> Void)?
        if showsTransfer, let observer {
            transfer = { received, expected in observer.transfer(step: id, received: received, expected: expected) }
        }
        var output: (any StepOutputSink)?
        if isProcess, let sink = configuration.output { output = MaskingOutput(inner: sink, secrets: secrets) }
        var slurm: SlurmRequest?
        let placement = node.attributes.placement
        if node.isProcessStep, placement.executor == .slurm {
            var request = SlurmRequest(cpus: placement.cpus, timeLimit: node.attributes.timeout)
            if let partition = placement.partition { request.partition = try interpolator.render(partition, in: values, stepID: id) }
            if let memory = placement.memory { request.memory = try interpolator.render(memory, in: values, stepID: id) }
            if let more = placement.slurmOptions {
                let text = try interpolator.render(more, in: values, stepID: id)
                guard let words = ShellWords.split(text) else {
                    throw RunError(stepID: id, kind: .spawn, message: "slurm-options has a quote that is not closed: \(text)")
                }
                request.options = words
            }
            slurm = request
        }
        var context = StepContext(
            id: id, workingDirectory: folder, environment: environment, output: output, transfer: transfer,
            slurm: slurm)
        // Only when a report will show it: output tails, a Slurm job.
        if configuration.reportOutputLimit > 0 || slurm != nil {
            let recorder = self.recorder
            context.cancelledWith = { produced in recorder.cancelled(id, with: produced) }
        }
        return (context, given)
    }

    /// Says once per pattern and folder that a `sources` pattern matched no
    /// file: a typo there would leave the step up to date forever.
    private func warnUnmatched(_ pattern: String, step id: String, in folder: String) {
        let first = warnedPatterns.withLock { $0.insert(pattern + "\u{0}" + folder).inserted }
        guard first else { return }
        let shown = folder == directory ? "" : " (in \(folder))"
        observer?.warning(
            secrets.mask(
                "\(id): sources \"\(pattern)\" matches no file\(shown); it adds nothing to the step's "
                    + "fingerprint (a typo?)"))
    }
}

/// Passes output lines on with secrets masked.
struct MaskingOutput: StepOutputSink {
    let inner: any StepOutputSink
    let secrets: Secrets

    func line(_ text: String, stream: OutputChannel, step id: String) {
        inner.line(secrets.mask(text), stream: stream, step: id)
    }
}
