import PromiseEngine
import WorkflowModel

// The syntax tree the parser builds and the checker reads. Leaves reuse the
// graph model's value types (Template, Step, Condition, ...), whose
// expressions keep their ranges; the tree adds the ranges of names and
// keywords. Lowering turns it into the model without them.

/// A name as written, with where it is.
struct SyntaxName: Sendable {
    var text: String
    var range: SourceRange
}

/// A parsed file: the top-level block and what only the top level has.
struct SyntaxFile: Sendable {
    var name: SyntaxName?
    var timeout: Duration?
    /// `executor`, `partition`, ... at the top level: for every process step.
    var placement = Placement()
    var body: SyntaxBlock
}

/// `{ ... }` or the whole file: statements in order.
struct SyntaxBlock: Sendable {
    var statements: [SyntaxStatement]
    /// From `{` to `}` (or the whole file).
    var range: SourceRange
}

/// A statement of a block.
enum SyntaxStatement: Sendable {
    case node(SyntaxNode)
    case catchClause(SyntaxCatch)
    case ensure(body: SyntaxBlock, keyword: SourceRange)
    case environment(name: SyntaxName, value: Template)
    case variable(SyntaxVariable)
    /// `dotenv "PATH" [optional]`.
    case dotenv(path: String, optional: Bool, keyword: SourceRange)
}

/// `catch [KIND...] { }`.
struct SyntaxCatch: Sendable {
    var kinds: [FailureKind]
    var body: SyntaxBlock
    var keyword: SourceRange
}

/// `var NAME = "..."` / `secret NAME = "..."`.
struct SyntaxVariable: Sendable {
    var name: SyntaxName
    var value: Template
    var isSecret: Bool
}

/// A step or group with its label and attributes.
struct SyntaxNode: Sendable {
    var label: SyntaxName?
    /// The keyword that says what the node is: `sh`, `parallel`, ...
    var keyword: SourceRange
    /// Where the node's text ends (after its block, if it has one).
    var end: Int
    var attributes: SyntaxAttributes
    var kind: SyntaxNodeKind

    /// Where the node starts: its label, else its keyword.
    var start: Int { label?.range.start ?? keyword.start }

    /// The whole node, label to closing brace.
    var range: SourceRange { SourceRange(start: start, end: end) }
}

/// The attributes of a node as written: the model's attributes, and the
/// names of `needs` with their ranges for the checker.
struct SyntaxAttributes: Sendable {
    var values = Attributes()
    var needs: [SyntaxName] = []

    var timeout: Duration? {
        get { values.timeout }
        set { values.timeout = newValue }
    }

    var retry: RetryPolicy? {
        get { values.retry }
        set { values.retry = newValue }
    }

    var cwd: Template? {
        get { values.cwd }
        set { values.cwd = newValue }
    }

    var environment: [EnvironmentSetting] {
        get { values.environment }
        set { values.environment = newValue }
    }

    var allowFailure: Bool {
        get { values.allowFailure }
        set { values.allowFailure = newValue }
    }

    var description: String? {
        get { values.description }
        set { values.description = newValue }
    }

    /// Where `desc` was written (a desc needs a label).
    var descriptionRange: SourceRange?
    /// Where `on-demand` was written (it needs a label, and a place a
    /// target can name).
    var onDemandRange: SourceRange?
    /// The labels thresholds name (`expect latency of LABEL ...`), checked
    /// against the group's steps.
    var thresholdLabels: [SyntaxName] = []

    /// The model's attributes.
    var lowered: Attributes {
        guard !needs.isEmpty else { return values }
        var attributes = values
        attributes.needs = needs.map(\.text)
        return attributes
    }

    /// Every template of the attributes.
    var templates: [Template] {
        guard !values.isEmpty else { return [] }
        return environment.map(\.value) + (cwd.map { [$0] } ?? [])
    }
}

/// What a node is.
enum SyntaxNodeKind: Sendable {
    case step(Step)
    case sequence(SyntaxBlock)
    case parallel(limit: Int?, keepGoing: Bool, body: SyntaxBlock, rate: Double?)
    case race(SyntaxBlock)
    case any(SyntaxBlock)
    indirect case foreach(SyntaxForeach)
    indirect case conditional(condition: Condition, then: SyntaxBlock, otherwise: SyntaxBlock?)

    var name: String {
        switch self {
        case .step(let step): return step.kindName
        case .sequence: return GroupKind.sequence.rawValue
        case .parallel: return GroupKind.parallel.rawValue
        case .race: return GroupKind.race.rawValue
        case .any: return GroupKind.any.rawValue
        case .foreach(let foreach): return foreach.repetition == nil ? GroupKind.foreach.rawValue : GroupKind.repeat.rawValue
        case .conditional: return GroupKind.conditional.rawValue
        }
    }
}

/// `foreach NAME in LIST [parallel [limit N] [keep-going]] { }`.
struct SyntaxForeach: Sendable {
    var variable: SyntaxName
    var list: ListSource
    var parallel: Bool
    var limit: Int?
    var keepGoing: Bool
    var body: SyntaxBlock
    /// Written as `repeat N` or `repeat for D`.
    var repetition: Repetition? = nil
    /// `rate N/s`, per second.
    var rate: Double? = nil
    /// What of the load shape is written as templates.
    var shape: LoadShape? = nil
    /// `rate START ramp ...`.
    var ramp: RateRamp? = nil
}

extension SyntaxStatement {
    /// `cookies off`: the http steps of these statements, and of every
    /// block below them, use no cookie store.
    static func turnCookiesOff(_ statements: inout [SyntaxStatement]) {
        for index in statements.indices {
            switch statements[index] {
            case .node(var node):
                node.turnCookiesOff()
                statements[index] = .node(node)
            case .catchClause(var clause):
                turnCookiesOff(&clause.body.statements)
                statements[index] = .catchClause(clause)
            case .ensure(var body, let keyword):
                turnCookiesOff(&body.statements)
                statements[index] = .ensure(body: body, keyword: keyword)
            case .environment, .variable, .dotenv:
                break
            }
        }
    }
}

extension SyntaxNode {
    mutating func turnCookiesOff() {
        switch kind {
        case .step(.http(var request)):
            request.cookies = false
            kind = .step(.http(request))
        case .step:
            break
        case .sequence(var body):
            SyntaxStatement.turnCookiesOff(&body.statements)
            kind = .sequence(body)
        case .parallel(let limit, let keepGoing, var body, let rate):
            SyntaxStatement.turnCookiesOff(&body.statements)
            kind = .parallel(limit: limit, keepGoing: keepGoing, body: body, rate: rate)
        case .race(var body):
            SyntaxStatement.turnCookiesOff(&body.statements)
            kind = .race(body)
        case .any(var body):
            SyntaxStatement.turnCookiesOff(&body.statements)
            kind = .any(body)
        case .foreach(var foreach):
            SyntaxStatement.turnCookiesOff(&foreach.body.statements)
            kind = .foreach(foreach)
        case .conditional(let condition, var then, var otherwise):
            SyntaxStatement.turnCookiesOff(&then.statements)
            if otherwise != nil { SyntaxStatement.turnCookiesOff(&otherwise!.statements) }
            kind = .conditional(condition: condition, then: then, otherwise: otherwise)
        }
    }
}
