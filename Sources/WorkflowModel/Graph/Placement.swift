import PromiseEngine

/// Where a process step runs: on this machine or as a job step
/// on a Slurm cluster, and what it asks of the cluster. Written on `sh`,
/// `exec`, a group or the workflow; a step inherits each setting from the
/// nearest group that has it.
/// See docs/language.md, 'Where process steps run: Slurm'.
package struct Placement: Sendable, Hashable {
    /// `executor local|slurm`.
    package enum ExecutorKind: String, Sendable, Hashable, CaseIterable {
        case local, slurm
    }

    package var executor: ExecutorKind?
    /// `partition "NAME"`: the Slurm partition (queue).
    package var partition: Template?
    /// `cpus N`: CPUs for the job step; locally, N of the `-j` slots.
    package var cpus: Int?
    /// `memory "4G"`: the job's memory (`srun --mem`).
    package var memory: Template?
    /// `slurm-options "..."`: more `srun` options, split as a shell would.
    package var slurmOptions: Template?

    package init(
        executor: ExecutorKind? = nil, partition: Template? = nil, cpus: Int? = nil,
        memory: Template? = nil, slurmOptions: Template? = nil
    ) {
        self.executor = executor
        self.partition = partition
        self.cpus = cpus
        self.memory = memory
        self.slurmOptions = slurmOptions
    }

    package var isEmpty: Bool {
        executor == nil && partition == nil && cpus == nil && memory == nil && slurmOptions == nil
    }

    /// These settings, with `outer`'s where these say nothing.
    package func inheriting(_ outer: Placement) -> Placement {
        Placement(
            executor: executor ?? outer.executor, partition: partition ?? outer.partition,
            cpus: cpus ?? outer.cpus, memory: memory ?? outer.memory,
            slurmOptions: slurmOptions ?? outer.slurmOptions)
    }

    /// The attribute words, in the order the formatter writes them.
    package static let keywords = ["executor", "partition", "cpus", "memory", "slurm-options"]
}

extension Placement {
    /// `512M`, `4G`, `1024` (megabytes): what `srun --mem` takes.
    package static func isMemoryAmount(_ text: String) -> Bool {
        var digits = Substring(text)
        if let last = digits.last, "KMGTkmgt".contains(last) { digits = digits.dropLast() }
        return !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }
    }
}

extension Node {
    /// An `sh` or `exec` step: the steps that run somewhere.
    package var isProcessStep: Bool {
        switch kind {
        case .step(.shell), .step(.exec): return true
        default: return false
        }
    }
}

extension Workflow {
    /// The workflow with `executor` where no `executor` attribute says
    /// otherwise (`--executor`): what the run, the graph and the dry run
    /// then all show.
    package func withDefaultExecutor(_ executor: Placement.ExecutorKind) -> Workflow {
        var copy = self
        copy.body = copy.body.withDefaultExecutor(executor)
        return copy
    }
}

extension Block {
    package func withDefaultExecutor(_ executor: Placement.ExecutorKind) -> Block {
        Block(
            statements: statements.map { statement in
                switch statement {
                case .node(let node): return .node(node.withDefaultExecutor(executor))
                case .catch(var clause):
                    clause.body = clause.body.withDefaultExecutor(executor)
                    return .catch(clause)
                case .ensure(let body): return .ensure(body.withDefaultExecutor(executor))
                case .environment, .variable, .dotenv: return statement
                }
            })
    }
}

extension Lanes {
    package func withDefaultExecutor(_ executor: Placement.ExecutorKind) -> Lanes {
        var copy = self
        copy.children = children.map { $0.withDefaultExecutor(executor) }
        return copy
    }
}

extension Node {
    package func withDefaultExecutor(_ executor: Placement.ExecutorKind) -> Node {
        var copy = self
        if isProcessStep || !isStep, copy.attributes.placement.executor == nil {
            copy.attributes.placement.executor = executor
        }
        guard case .group(let group) = kind else { return copy }
        switch group {
        case .sequence(let block): copy.kind = .group(.sequence(block.withDefaultExecutor(executor)))
        case .parallel(var parallel):
            parallel.lanes = parallel.lanes.withDefaultExecutor(executor)
            copy.kind = .group(.parallel(parallel))
        case .race(let lanes): copy.kind = .group(.race(lanes.withDefaultExecutor(executor)))
        case .any(let lanes): copy.kind = .group(.any(lanes.withDefaultExecutor(executor)))
        case .foreach(var foreach):
            foreach.body = foreach.body.withDefaultExecutor(executor)
            copy.kind = .group(.foreach(foreach))
        case .conditional(var conditional):
            conditional.then = conditional.then.withDefaultExecutor(executor)
            conditional.otherwise = conditional.otherwise?.withDefaultExecutor(executor)
            copy.kind = .group(.conditional(conditional))
        }
        return copy
    }

    private var isStep: Bool {
        if case .step = kind { return true }
        return false
    }
}

/// A process step's Slurm settings with their values filled in, as the
/// step runner gets them.
package struct SlurmRequest: Sendable, Hashable {
    package var partition: String?
    package var cpus: Int?
    package var memory: String?
    /// `slurm-options`, split as a shell would.
    package var options: [String]
    /// The step's timeout, which is also the job's time limit.
    package var timeLimit: Duration?

    package init(
        partition: String? = nil, cpus: Int? = nil, memory: String? = nil, options: [String] = [],
        timeLimit: Duration? = nil
    ) {
        self.partition = partition
        self.cpus = cpus
        self.memory = memory
        self.options = options
        self.timeLimit = timeLimit
    }
}
