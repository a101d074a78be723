/// A chain of statements (spec §3): each starts when the ones before it
/// have succeeded; `catch` and `ensure` act on the chain before them.
public struct Block: Sendable, Hashable {
    public var statements: [Statement]

    public init(statements: [Statement] = []) {
        self.statements = statements
    }

    /// The steps and groups of the block, in order (no catch/ensure bodies).
    public var nodes: [Node] {
        statements.compactMap { if case .node(let node) = $0 { return node } else { return nil } }
    }
}

/// One statement of a block.
public enum Statement: Sendable, Hashable {
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
public struct DotenvFile: Sendable, Hashable {
    /// As written; relative to the workflow's folder.
    public var path: String
    /// A missing file is no failure.
    public var optional: Bool
    public var location: SourceLocation

    public init(path: String, optional: Bool, location: SourceLocation) {
        self.path = path
        self.optional = optional
        self.location = location
    }
}

/// `catch [KIND...] { ... }`.
public struct CatchClause: Sendable, Hashable {
    /// The failure kinds handled; empty means every kind.
    public var kinds: [FailureKind]
    public var body: Block
    public var location: SourceLocation

    public init(kinds: [FailureKind], body: Block, location: SourceLocation) {
        self.kinds = kinds
        self.body = body
        self.location = location
    }
}

/// The kinds of failure (spec §8) a `catch` can name.
public enum FailureKind: String, Sendable, Hashable, CaseIterable {
    case exit, signal, spawn, timeout, http, network, expect, file, fail, reference
}

/// `env NAME = "..."`.
public struct EnvironmentSetting: Sendable, Hashable {
    public var name: String
    public var value: Template

    public init(name: String, value: Template) {
        self.name = name
        self.value = value
    }
}

/// `var NAME = "..."` or `secret NAME = "..."`.
public struct VariableDeclaration: Sendable, Hashable {
    public var name: String
    public var value: Template
    /// Shown as `***` in every output and report.
    public var isSecret: Bool
    public var location: SourceLocation

    public init(name: String, value: Template, isSecret: Bool, location: SourceLocation) {
        self.name = name
        self.value = value
        self.isSecret = isSecret
        self.location = location
    }
}

/// A step or a group, with what every node has.
public struct Node: Sendable, Hashable {
    /// Unique in the workflow: the label when no other node has it, else
    /// `label@line:col`; unlabeled nodes are `kind@line:col`. Iterations of
    /// a foreach add `[i]` at run time.
    public var id: String
    public var label: String?
    public var location: SourceLocation
    public var attributes: Attributes
    public var kind: Kind

    public init(id: String, label: String?, location: SourceLocation, attributes: Attributes, kind: Kind) {
        self.id = id
        self.label = label
        self.location = location
        self.attributes = attributes
        self.kind = kind
    }

    /// A step does one thing; a group runs other nodes.
    public enum Kind: Sendable, Hashable {
        case step(Step)
        case group(Group)
    }

    /// What to show a person: the label, or a short summary of the step
    /// (`sh make test`), or the group's kind.
    public var displayName: String {
        if let label { return label }
        switch kind {
        case .step(let step): return StepSummary.truncate(StepSummary.describe(step), to: 48)
        case .group(let group): return group.kindName
        }
    }

    /// `sh`, `http`, ... for steps; `parallel`, `foreach`, ... for groups.
    public var kindName: String {
        switch kind {
        case .step(let step): return step.kindName
        case .group(let group): return group.kindName
        }
    }
}

/// The attributes any node may have (spec §5); those a kind does not take
/// were rejected by the checker. Most nodes have none: then no storage is
/// allocated.
public struct Attributes: Sendable, Hashable {
    private struct Values: Sendable, Hashable {
        var timeout: Duration?
        var retry: RetryPolicy?
        var environment: [EnvironmentSetting] = []
        var cwd: Template?
        var needs: [String] = []
        var allowFailure = false
        var description: String?

        var isEmpty: Bool {
            timeout == nil && retry == nil && environment.isEmpty && cwd == nil && needs.isEmpty && !allowFailure
                && description == nil
        }
    }

    /// Immutable, so shared copies are safe; a change makes a new box.
    private final class Box: Sendable {
        let values: Values

        init(_ values: Values) {
            self.values = values
        }
    }

    private var box: Box?

    private var values: Values { box?.values ?? Values() }

    private mutating func update(_ change: (inout Values) -> Void) {
        var values = self.values
        change(&values)
        box = values.isEmpty ? nil : Box(values)
    }

    public init(timeout: Duration? = nil, retry: RetryPolicy? = nil, environment: [EnvironmentSetting] = [],
                cwd: Template? = nil, needs: [String] = []) {
        let values = Values(timeout: timeout, retry: retry, environment: environment, cwd: cwd, needs: needs,
                            allowFailure: false, description: nil)
        box = values.isEmpty ? nil : Box(values)
    }

    /// Per attempt when there is a retry.
    public var timeout: Duration? {
        get { box?.values.timeout }
        set { update { $0.timeout = newValue } }
    }

    public var retry: RetryPolicy? {
        get { box?.values.retry }
        set { update { $0.retry = newValue } }
    }

    /// `env NAME = "..."` of a process step.
    public var environment: [EnvironmentSetting] {
        get { box?.values.environment ?? [] }
        set { update { $0.environment = newValue } }
    }

    /// `cwd PATH` of a process step.
    public var cwd: Template? {
        get { box?.values.cwd }
        set { update { $0.cwd = newValue } }
    }

    /// Labels of siblings in a parallel group that must succeed first.
    public var needs: [String] {
        get { box?.values.needs ?? [] }
        set { update { $0.needs = newValue } }
    }

    /// `allow-failure`: a failure is reported and the chain goes on as
    /// if it had succeeded (spec §12).
    public var allowFailure: Bool {
        get { box?.values.allowFailure ?? false }
        set { update { $0.allowFailure = newValue } }
    }

    /// `desc "..."`: one line saying what the step or group is for.
    public var description: String? {
        get { box?.values.description }
        set { update { $0.description = newValue } }
    }

    public var isEmpty: Bool { box == nil }

    public static func == (lhs: Attributes, rhs: Attributes) -> Bool {
        lhs.values == rhs.values
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(values)
    }
}

/// `retry N [delay D] [backoff D]`.
public struct RetryPolicy: Sendable, Hashable {
    /// Runs again up to this many more times after a failure.
    public var count: Int
    /// Constant wait between attempts.
    public var delay: Duration?
    /// Wait D, 2D, 4D, ... between attempts (instead of `delay`).
    public var backoff: Duration?

    public init(count: Int, delay: Duration? = nil, backoff: Duration? = nil) {
        self.count = count
        self.delay = delay
        self.backoff = backoff
    }

    /// The wait before attempt `attempt` (2 for the first retry).
    public func wait(beforeAttempt attempt: Int) -> Duration {
        if let backoff {
            let doublings = min(max(0, attempt - 2), 30)
            return backoff * (1 << doublings)
        }
        return delay ?? .zero
    }
}
