import PromiseEngine

/// A chain of statements: each starts when the ones before it
/// have succeeded; `catch` and `ensure` act on the chain before them.
/// See docs/language.md, 'Statements'.
package struct Block: Sendable, Hashable {
    package var statements: [Statement]

    package init(statements: [Statement] = []) {
        self.statements = statements
    }

    /// The steps and groups of the block, in order (no catch/ensure bodies).
    package var nodes: [Node] {
        statements.compactMap { if case .node(let node) = $0 { return node } else { return nil } }
    }
}

/// One statement of a block.
package enum Statement: Sendable, Hashable {
    /// A step or a group.
    case node(Node)
    /// Runs only when the chain before it failed (with one of `kinds`, if any).
    case `catch`(CatchClause)
    /// Runs whatever the state of the chain before it.
    case ensure(Block)
    /// `env NAME = "..."`: for every process in the rest of the block and below.
    case environment(EnvironmentSetting)
    /// `var` / `secret`: in scope for the rest of the block and below.
    case variable(VariableDeclaration)
    /// `dotenv "PATH" [optional]`: each `NAME=VALUE` of the file as an
    /// `env` of the block.
    case dotenv(DotenvFile)
}

/// `dotenv "PATH" [optional]`.
package struct DotenvFile: Sendable, Hashable {
    /// As written; relative to the workflow's folder.
    package var path: String
    /// A missing file is no failure.
    package var optional: Bool
    package var location: SourcePosition

    package init(path: String, optional: Bool, location: SourcePosition) {
        self.path = path
        self.optional = optional
        self.location = location
    }
}

/// `catch [KIND...] { ... }`.
package struct CatchClause: Sendable, Hashable {
    /// The failure kinds handled; empty means every kind.
    package var kinds: [FailureKind]
    package var body: Block
    package var location: SourcePosition

    package init(kinds: [FailureKind], body: Block, location: SourcePosition) {
        self.kinds = kinds
        self.body = body
        self.location = location
    }
}

/// The kinds of failure a `catch` can name.
/// See docs/language.md, 'Statements'.
package enum FailureKind: String, Sendable, Hashable, CaseIterable {
    case exit, signal, spawn, timeout, http, network, expect, file, fail, reference
}

/// `env NAME = "..."`.
package struct EnvironmentSetting: Sendable, Hashable {
    package var name: String
    package var value: Template

    package init(name: String, value: Template) {
        self.name = name
        self.value = value
    }
}

/// `var NAME = "..."` or `secret NAME = "..."`.
package struct VariableDeclaration: Sendable, Hashable {
    package var name: String
    package var value: Template
    /// Shown as `***` in every output and report.
    package var isSecret: Bool
    package var location: SourcePosition

    package init(name: String, value: Template, isSecret: Bool, location: SourcePosition) {
        self.name = name
        self.value = value
        self.isSecret = isSecret
        self.location = location
    }
}

/// A step or a group, with what every node has.
package struct Node: Sendable, Hashable {
    /// Unique in the workflow: the label when no other node has it, else
    /// `label@line:col`; unlabeled nodes are `kind@line:col`. Iterations of
    /// a foreach add `[i]` at run time.
    package var id: String
    package var label: String?
    package var location: SourcePosition
    package var attributes: Attributes
    package var kind: Kind

    package init(id: String, label: String?, location: SourcePosition, attributes: Attributes, kind: Kind) {
        self.id = id
        self.label = label
        self.location = location
        self.attributes = attributes
        self.kind = kind
    }

    /// A step does one thing; a group runs other nodes.
    package enum Kind: Sendable, Hashable {
        case step(Step)
        case group(Group)
    }

    /// What to show a person: the label, or a short summary of the step
    /// (`sh make test`), or the group's kind.
    package var displayName: String {
        if let label { return label }
        switch kind {
        case .step(let step): return StepSummary.truncate(StepSummary.describe(step), to: 48)
        case .group(let group): return group.kindName
        }
    }

    /// `sh`, `http`, ... for steps; `parallel`, `foreach`, ... for groups.
    package var kindName: String {
        switch kind {
        case .step(let step): return step.kindName
        case .group(let group): return group.kindName
        }
    }
}

/// The attributes any node may have; those a kind does not take
/// were rejected by the checker. Most nodes have none: then no storage is
/// allocated.
/// See docs/language.md, 'Steps'.
@dynamicMemberLookup
@usableFromInline
package struct Attributes: Sendable, Hashable {
    /// The attributes, read and written as the node's own
    /// (`attributes.timeout`).
    @usableFromInline
    package struct Values: Sendable, Hashable {
        /// Per attempt when there is a retry.
        package var timeout: Duration?
        package var retry: RetryPolicy?
        /// `env NAME = "..."` of a process step.
        package var environment: [EnvironmentSetting] = []
        /// `cwd PATH` of a process step.
        package var cwd: Template?
        /// Labels of siblings in a parallel group that must succeed first.
        package var needs: [String] = []
        /// `allow-failure`: a failure is reported and the chain goes on as
        /// if it had succeeded.
        package var allowFailure = false
        /// `desc "..."`: one line saying what the step or group is for.
        package var description: String?
        /// `on-demand`: a labelled step or group that runs only
        /// when a target names it or a lane that runs `needs` it
        /// (`TargetSelection`).
        package var onDemand = false
        /// `executor`, `partition`, `cpus`, `memory`, `slurm-options`.
        /// After lowering, a process step's placement includes what it
        /// inherits from its groups.
        package var placement: Placement {
            get { placementBox?.fields ?? Placement() }
            set { placementBox = newValue.isEmpty ? nil : CopyOnWrite(newValue) }
        }
        /// Boxed: few nodes have a placement, and inline it would be 89 of
        /// these values' bytes on every node that has any attribute.
        private var placementBox: CopyOnWrite<Placement>?
        /// `expect latency ...`, `expect failures ...`, `expect rate ...` in a
        /// group's block: checked when the group ends.
        package var thresholds: [Threshold] = []

        @usableFromInline
        var isEmpty: Bool {
            timeout == nil && retry == nil && environment.isEmpty && cwd == nil && needs.isEmpty && !allowFailure
                && description == nil && !onDemand && placementBox == nil && thresholds.isEmpty
        }
    }

    /// nil while every attribute is unset, as on most nodes.
    @usableFromInline
    var storage: CopyOnWrite<Values>?

    /// Every attribute unset.
    @usableFromInline
    static let unset = Values()

    /// An attribute, read or written as `attributes.timeout`.
    @inlinable
    package subscript<Value>(dynamicMember attribute: WritableKeyPath<Values, Value>) -> Value {
        get {
            // Read in place: `storage?.fields ?? unset` would copy every
            // attribute (and retain its arrays) to read one.
            if let storage { return storage[attribute] }
            return Self.unset[keyPath: attribute]
        }
        set {
            var values = storage?.fields ?? Self.unset
            values[keyPath: attribute] = newValue
            storage = values.isEmpty ? nil : CopyOnWrite(values)
        }
    }

    package init(
        timeout: Duration? = nil, retry: RetryPolicy? = nil, environment: [EnvironmentSetting] = [],
        cwd: Template? = nil, needs: [String] = []
    ) {
        var values = Values()
        values.timeout = timeout
        values.retry = retry
        values.environment = environment
        values.cwd = cwd
        values.needs = needs
        storage = values.isEmpty ? nil : CopyOnWrite(values)
    }

    package var isEmpty: Bool { storage == nil }
}

/// `retry N [delay D] [backoff D]`.
package struct RetryPolicy: Sendable, Hashable {
    /// Runs again up to this many more times after a failure.
    package var count: Int
    /// Constant wait between attempts.
    package var delay: Duration?
    /// Wait D, 2D, 4D, ... between attempts (instead of `delay`).
    package var backoff: Duration?

    package init(count: Int, delay: Duration? = nil, backoff: Duration? = nil) {
        self.count = count
        self.delay = delay
        self.backoff = backoff
    }

    /// The wait before attempt `attempt` (2 for the first retry).
    package func wait(beforeAttempt attempt: Int) -> Duration {
        if let backoff {
            let doublings = min(max(0, attempt - 2), 30)
            return backoff * (1 << doublings)
        }
        return delay ?? .zero
    }
}
