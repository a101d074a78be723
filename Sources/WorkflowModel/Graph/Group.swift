import PromiseEngine

/// A node that runs other nodes.
/// See docs/language.md, 'Groups'.
package enum Group: Sendable, Hashable {
    /// `sequence { }`: an explicit chain.
    case sequence(Block)
    /// `parallel [limit N] [keep-going] { }`.
    indirect case parallel(ParallelGroup)
    /// `race { }`: the first to finish decides.
    case race(Lanes)
    /// `any { }`: the first to succeed wins.
    case any(Lanes)
    /// `foreach NAME in LIST [parallel ...] { }`.
    indirect case foreach(ForeachGroup)
    /// `if COND { } [else { }]`.
    indirect case conditional(ConditionalGroup)

    /// Which kind of group it is.
    package var kind: GroupKind {
        switch self {
        case .sequence: return .sequence
        case .parallel: return .parallel
        case .race: return .race
        case .any: return .any
        case .foreach(let foreach): return foreach.repetition == nil ? .foreach : .repeat
        case .conditional: return .conditional
        }
    }

    /// The keyword of the group: `sequence`, `parallel`, ..., `if`.
    package var kindName: String { kind.rawValue }

    /// The lanes of `parallel`, `race` and `any`; nil for the others.
    package var lanes: Lanes? {
        switch self {
        case .parallel(let parallel): return parallel.lanes
        case .race(let lanes), .any(let lanes): return lanes
        case .sequence, .foreach, .conditional: return nil
        }
    }

    /// The blocks of the others, in order: a sequence's, a foreach's body,
    /// an `if`'s branches; none for groups of lanes.
    package var blocks: [Block] {
        switch self {
        case .sequence(let block): return [block]
        case .foreach(let foreach): return [foreach.body]
        case .conditional(let conditional): return [conditional.then] + (conditional.otherwise.map { [$0] } ?? [])
        case .parallel, .race, .any: return []
        }
    }
}

/// The kinds of group, each by its keyword: the one place a group keyword
/// is spelled (the syntax tree, the parser, `fmt` and the language table
/// name groups through it).
package enum GroupKind: String, Sendable, CaseIterable {
    case sequence, parallel, race, any, foreach
    /// `repeat N [parallel ...] { }` and `repeat for D [parallel ...] { }`:
    /// a foreach over the iteration numbers from 0,
    /// `{{repeat.index}}` in the body.
    case `repeat`
    case conditional = "if"

    /// Whether its children are lanes that run at once (`parallel`,
    /// `race`, `any`).
    package var hasLanes: Bool { self == .parallel || self == .race || self == .any }
}

/// The children of a group that starts them all at once, and the
/// declarations written among them (which apply to every child).
package struct Lanes: Sendable, Hashable {
    package var children: [Node]
    /// `env` lines in the group's block: for every process below.
    package var environment: [EnvironmentSetting]
    /// `var` / `secret` lines in the group's block: in scope for every child.
    package var variables: [VariableDeclaration]
    /// `dotenv` lines in the group's block: their pairs for every process below.
    package var dotenv: [DotenvFile] = []

    package init(children: [Node], environment: [EnvironmentSetting] = [], variables: [VariableDeclaration] = []) {
        self.children = children
        self.environment = environment
        self.variables = variables
    }
}

/// `parallel [limit N] [keep-going] { }`.
package struct ParallelGroup: Sendable, Hashable {
    /// At most this many children run at once; nil: no limit.
    package var limit: Int?
    /// Every child runs to its end; the group fails afterwards if one failed.
    package var keepGoing: Bool
    package var lanes: Lanes
    /// `dependencies[i]`: indices in `lanes.children` of the siblings child
    /// `i` needs (its `needs` resolved). No cycles: the checker rejected them.
    package var dependencies: [[Int]]
    /// `rate N/s`: the children start on a fixed schedule, the
    /// k-th at k/N seconds after the group starts; per second.
    package var rate: Double?

    /// The rate as written: `500/s`, `30/m`, `2/h`.
    package var rateText: String? { rate.map(RateText.format) }

    package init(limit: Int?, keepGoing: Bool, lanes: Lanes, dependencies: [[Int]], rate: Double? = nil) {
        self.rate = rate
        self.limit = limit
        self.keepGoing = keepGoing
        self.lanes = lanes
        self.dependencies = dependencies
    }
}

/// `foreach NAME in LIST { }`: the body once per item.
package struct ForeachGroup: Sendable, Hashable {
    /// The name of the item: `{{NAME}}` in the body.
    package var variable: String
    package var list: ListSource
    package var body: Block
    /// The iterations as a parallel group (`parallel [limit N] [keep-going]`).
    package var parallel: Bool
    package var limit: Int?
    package var keepGoing: Bool
    /// Written as `repeat N` or `repeat for D` (the variable is
    /// `repeat.index`; for `repeat N` the list is `range(0, N-1)`).
    package var repetition: Repetition?
    /// `rate N/s`: iterations start on a fixed schedule, the
    /// k-th at k/N seconds after the group starts; per second.
    package var rate: Double?

    /// The rate as written: `500/s`, `30/m`, `2/h`.
    package var rateText: String? { rate.map(RateText.format) }
    /// The parts of the load shape written as templates (`repeat {{n}}`,
    /// `limit {{l}}`, `rate {{r}}/s`), resolved when the group
    /// starts; nil when it has none. The count, duration, limit and rate
    /// above then hold placeholders.
    package var shape: LoadShape?
    /// `rate START ramp TARGET in D, ...`: the schedule in
    /// stages; `rate` is then its start.
    package var ramp: RateRamp?

    package init(
        variable: String, list: ListSource, body: Block, parallel: Bool, limit: Int?, keepGoing: Bool,
        repetition: Repetition? = nil, rate: Double? = nil
    ) {
        self.repetition = repetition
        self.rate = rate
        self.variable = variable
        self.list = list
        self.body = body
        self.parallel = parallel
        self.limit = limit
        self.keepGoing = keepGoing
    }
}

extension ForeachGroup {
    /// `repeat 20`, `repeat for {{d}}`: a repeat's head as written (its
    /// templates through `show`, as written by default); nil for a foreach.
    package func repetitionText(_ show: (Template) -> String = \.sourceText) -> String? {
        if ramp?.endsTheGroup == true { return "repeat" }
        if let count = shape?.count { return "repeat " + show(count) }
        if let duration = shape?.duration { return "repeat for " + show(duration) }
        return repetition?.description
    }

    /// The limit as written: `64`, `{{l}}`.
    package func limitText(_ show: (Template) -> String = \.sourceText) -> String? {
        shape?.limit.map(show) ?? limit.map(String.init)
    }

    /// The rate as written: `500/s`, `{{r}}/s`.
    package func writtenRate(_ show: (Template) -> String = \.sourceText) -> String? {
        shape?.rate.map(show) ?? ramp?.text ?? rateText
    }
}

/// The templates of a load shape: the count or duration of a
/// `repeat`, and the `limit` and `rate` of its iterations or a foreach's.
/// See docs/language.md, 'Load'.
package struct LoadShape: Sendable, Hashable {
    /// `repeat {{n}}`.
    package var count: Template?
    /// `repeat for {{d}}`.
    package var duration: Template?
    /// `limit {{l}}`.
    package var limit: Template?
    /// `rate {{r}}/s`: the whole word, its unit included.
    package var rate: Template?

    package init(count: Template? = nil, duration: Template? = nil, limit: Template? = nil, rate: Template? = nil) {
        self.count = count
        self.duration = duration
        self.limit = limit
        self.rate = rate
    }

    /// Whether nothing in it is a template.
    package var isEmpty: Bool { count == nil && duration == nil && limit == nil && rate == nil }
}

/// How many times a `repeat` runs its body.
/// See docs/language.md, 'Load'.
package enum Repetition: Sendable, Hashable {
    /// `repeat N`: N iterations.
    case count(Int)
    /// `repeat for D`: the iterations that start (or, with a rate, are
    /// due) before D has passed since the group started.
    case duration(Duration)

    /// As written: `repeat 1000`, `repeat for 30s`.
    package var description: String {
        switch self {
        case .count(let count): return "repeat \(count)"
        case .duration(let duration): return "repeat for \(DurationText.format(duration))"
        }
    }
}

/// Where a foreach takes its items.
package enum ListSource: Sendable, Hashable {
    /// `["a", "b"]`
    case items([Template])
    /// `lines("FILE")`: the file's non-empty lines.
    case lines(Template)
    /// `split(STRING)`: the value's non-empty lines.
    case split(Template)
    /// `glob("PATTERN")`: sorted paths; `*`, `?`, `**`.
    case glob(Template)
    /// `range(A, B)`: the integers A...B (inclusive); each bound is an
    /// integer or a template that must give one.
    case range(Template, Template)
}

/// `if COND { } [else { }]`.
package struct ConditionalGroup: Sendable, Hashable {
    package var condition: Condition
    package var then: Block
    package var otherwise: Block?

    package init(condition: Condition, then: Block, otherwise: Block?) {
        self.condition = condition
        self.then = then
        self.otherwise = otherwise
    }
}

/// The condition of an `if`.
package indirect enum Condition: Sendable, Hashable {
    case equal(Template, Template)
    case notEqual(Template, Template)
    /// `exists PATH`: the path exists (relative to the workflow's folder).
    case exists(Template)
    case not(Condition)
}
