import PromiseEngine
import WorkflowModel

// Groups: sequence, parallel, race, any, foreach, if; their lists
// and conditions.
// See docs/language.md, 'Groups'.

extension Parser {
    /// The variable a `repeat` body sees: `{{repeat.index}}`.
    static let repeatIndex = "repeat.index"
    /// `limit`, `rate`, `keep-going`.
    static let parallelOptions = LanguageTable.parallelOptions.map(\.name)

    mutating func parseGroup(label: SyntaxName?, _ context: BlockContext) throws(ParseFailure) -> SyntaxNode {
        let keywordRange = current.range
        let keyword = text(current)
        let isParallelChild = context.childrenAreParallelChildren
        advance()
        var attributes = SyntaxAttributes()
        let kind: SyntaxNodeKind
        switch GroupKind(rawValue: keyword) {
        case .sequence:
            kind = .sequence(
                try parseBlock(context.child(.group("sequence"), nodeIsParallelChild: isParallelChild), after: "'sequence'", attributes: &attributes))
        case .race, .any:
            let body = try parseBlock(
                context.child(.lanes(keyword), nodeIsParallelChild: isParallelChild), after: "'\(keyword)'", attributes: &attributes)
            kind = keyword == GroupKind.race.rawValue ? .race(body) : .any(body)
        case .parallel:
            var none = LoadShape()
            var noRamp: RateRamp?
            let (limit, keepGoing, rate) = try parseParallelOptions(&none, ramp: &noRamp, allowsTemplates: false)
            let body = try parseBlock(
                context.child(.lanes("parallel"), nodeIsParallelChild: isParallelChild), after: "'parallel'", attributes: &attributes)
            kind = .parallel(limit: limit, keepGoing: keepGoing, body: body, rate: rate?.perSecond)
        case .foreach:
            let variable = try expectIdentifier("the item's name after 'foreach'")
            declaredNames.insert(variable.text)
            if variable.text == "env" || variable.text == "error" {
                throw error("'\(variable.text)' is reserved ({{\(variable.text).…}}); choose another name", at: variable.range)
            }
            guard isKeyword("in") else {
                throw error("expected 'in' after 'foreach \(variable.text)', found \(found)")
            }
            advance()
            let list = try parseList()
            var shape = LoadShape()
            var ramp: RateRamp?
            let (parallel, limit, keepGoing, rate) = try parseIterationOptions(&shape, ramp: &ramp)
            let body = try parseBlock(
                context.child(.group("foreach"), nodeIsParallelChild: isParallelChild), after: "the foreach list", attributes: &attributes)
            var foreach = SyntaxForeach(
                variable: variable, list: list, parallel: parallel, limit: limit, keepGoing: keepGoing, body: body,
                rate: rate?.perSecond)
            foreach.shape = shape.isEmpty ? nil : shape
            foreach.ramp = ramp
            kind = .foreach(foreach)
        case .repeat:
            // `repeat N`: a foreach over 0...N-1 whose item is
            // {{repeat.index}}; `repeat for D`: over as many as start in D.
            var repetition: Repetition
            let countRange = current.range
            var shape = LoadShape()
            var endsWithRamp = false
            if isKeyword("for"), let template = peekShapeTemplate(offset: 1) {
                // `repeat for {{d}}`: a placeholder until the group starts.
                advance()
                advance()
                shape.duration = template
                repetition = .duration(.seconds(1))
            } else if let template = peekShapeTemplate(offset: 0) {
                advance()
                shape.count = template
                repetition = .count(1)
            } else if isKeyword("parallel") {
                // `repeat parallel ... rate R ramp ...`: it ends with its
                // last stage (checked below).
                repetition = .duration(.seconds(1))
                endsWithRamp = true
            } else if isKeyword("for") {
                advance()
                guard current.kind == .number else {
                    throw error("expected how long after 'repeat for', as in 'repeat for 30s parallel limit 64 { ... }', found \(found)")
                }
                let durationRange = current.range
                let duration = try parseDuration()
                guard duration > .zero else {
                    throw error("'repeat for' needs a duration above zero, as in 'repeat for 30s'", at: durationRange)
                }
                repetition = .duration(duration)
            } else {
                guard current.kind == .number, let count = Int(text(current)), count >= 1, count <= 100_000_000 else {
                    throw error(
                        "expected how many times after 'repeat' (1 to 100000000) or 'for' and a duration, "
                            + "as in 'repeat 1000 parallel limit 64 { ... }' or 'repeat for 30s { ... }', found \(found)")
                }
                repetition = .count(count)
                advance()
            }
            var ramp: RateRamp?
            let (parallel, limit, keepGoing, rate) = try parseIterationOptions(&shape, ramp: &ramp)
            if endsWithRamp {
                guard var stages = ramp else {
                    throw error(
                        "a repeat without a count or 'for' ends with the last stage of its rate's ramp; write 'repeat N', "
                            + "'repeat for D' or 'repeat parallel rate 0/s ramp 500/s in 30s { ... }'", at: countRange)
                }
                stages.endsTheGroup = true
                ramp = stages
                repetition = .duration(stages.total)
            }
            declaredNames.insert("repeat")
            let body = try parseBlock(
                context.child(.group("repeat"), nodeIsParallelChild: isParallelChild), after: "the repeat count",
                attributes: &attributes)
            let variable = SyntaxName(text: Self.repeatIndex, range: countRange)
            var list = ListSource.items([])
            if case .count(let count) = repetition { list = .range(.literal("0"), .literal(String(count - 1))) }
            var foreach = SyntaxForeach(
                variable: variable, list: list, parallel: parallel,
                limit: limit, keepGoing: keepGoing, body: body, repetition: repetition, rate: rate?.perSecond)
            foreach.shape = shape.isEmpty ? nil : shape
            foreach.ramp = ramp
            kind = .foreach(foreach)
        case .conditional, nil:
            kind = try parseConditional(context, attributes: &attributes)
        }
        switch kind {
        case .sequence(let body), .parallel(_, _, let body, _), .race(let body), .any(let body):
            checkThresholdLabels(attributes.thresholdLabels, in: body)
        case .foreach(let foreach):
            checkThresholdLabels(attributes.thresholdLabels, in: foreach.body)
        case .step, .conditional:
            break
        }
        requireLabel(label, for: attributes)
        return SyntaxNode(label: label, keyword: keywordRange, end: previousEnd, attributes: attributes, kind: kind)
    }

    /// `[parallel [limit N] [keep-going]]` after a foreach's list or a
    /// repeat's count.
    private mutating func parseIterationOptions(_ shape: inout LoadShape, ramp: inout RateRamp?) throws(ParseFailure)
        -> (parallel: Bool, limit: Int?, keepGoing: Bool, rate: (perSecond: Double, range: SourceRange)?)
    {
        if isKeyword("parallel") {
            advance()
            let (limit, keepGoing, rate) = try parseParallelOptions(&shape, ramp: &ramp, allowsTemplates: true)
            return (true, limit, keepGoing, rate)
        }
        if Self.parallelOptions.contains(where: isKeyword) {
            throw error("'\(text(current))' applies to parallel iterations; write 'parallel \(text(current)) ...'")
        }
        return (false, nil, false, nil)
    }

    /// A word of `{{ }}` at `offset` tokens ahead: a load shape's template,
    /// or nil.
    private mutating func peekShapeTemplate(offset: Int) -> Template? {
        let token = offset == 0 ? current : peekNext()
        guard token.kind == .number, bytes[token.start] == UInt8(ascii: "{") else { return nil }
        return TemplateParser(bytes: bytes).parseBare(token, &diagnostics)
    }

    /// `[limit N] [keep-going]`, in any order. A limit or rate written as
    /// a template goes to `shape` (iterations only: `allowsTemplates` is
    /// false for a `parallel` group, whose lanes are known as written).
    private mutating func parseParallelOptions(_ shape: inout LoadShape, ramp: inout RateRamp?, allowsTemplates: Bool)
        throws(ParseFailure)
        -> (Int?, Bool, (perSecond: Double, range: SourceRange)?)
    {
        var limit: Int?
        var keepGoing = false
        var rate: (perSecond: Double, range: SourceRange)?
        while current.kind == .identifier {
            switch text(current) {
            case "limit":
                advance()
                if let template = peekShapeTemplate(offset: 0) {
                    guard allowsTemplates else { throw error("a 'parallel' group's limit is a number; '{{ }}' is for repeat and foreach") }
                    shape.limit = template
                    limit = 1
                    advance()
                    continue
                }
                limit = try parseInteger("the limit", range: 1...1_000_000)
            case "keep-going":
                advance()
                keepGoing = true
            case "ramp":
                guard allowsTemplates else { throw error("'ramp' applies to the iterations of repeat and foreach") }
                guard let rate else { throw error("'ramp' follows a rate, as in 'rate 0/s ramp 500/s in 30s, 0/s in 30s'") }
                // Its start is a number too, as its stages are.
                if shape.rate != nil {
                    throw error(
                        "a ramp starts at a rate written as a number ('rate 0/s ramp 500/s in 30s'); '{{ }}' is for a 'rate' "
                            + "without a ramp", at: rate.range)
                }
                advance()
                ramp = RateRamp(start: rate.perSecond, stages: try parseRampStages())
            case "rate":
                let start = current.range
                advance()
                if let template = peekShapeTemplate(offset: 0) {
                    guard allowsTemplates else { throw error("a 'parallel' group's rate is a number; '{{ }}' is for repeat and foreach") }
                    shape.rate = template
                    rate = (1, start.extended(to: current.range))
                    advance()
                    continue
                }
                // 0/s only where a ramp follows.
                let ramps = peekNext().kind == .identifier && text(peekNext()) == "ramp"
                guard current.kind == .number, let perSecond = RateText.parse(text(current)) else {
                    throw error("expected a rate after 'rate', as in 'rate 500/s' (per second, minute or hour: /s, /m, /h), found \(found)")
                }
                if let problem = RateText.problem(perSecond, zeroAllowed: ramps) { throw error("\(problem), found \(found)") }
                rate = (perSecond, start.extended(to: current.range))
                advance()
            default:
                let word = text(current)
                let suggestion = Suggestion.phrase(for: word, among: Self.parallelOptions)
                throw error(
                    "unknown option '\(word)' for parallel"
                        + (suggestion.isEmpty ? "; write 'parallel [limit N] [rate N/s] [keep-going] {'" : suggestion))
            }
        }
        return (limit, keepGoing, rate)
    }

    /// A stage is written as numbers: its schedule is known before the
    /// run (`graph`, `--dry-run` and the planned count show it).
    private mutating func refuseTemplateInRamp() throws(ParseFailure) {
        guard peekShapeTemplate(offset: 0) != nil else { return }
        throw error(
            "a ramp's stages are written as numbers ('ramp 500/s in 30s'); '{{ }}' is for a repeat's count or "
                + "duration, and for 'limit' and a 'rate' without a ramp")
    }

    /// `TARGET in DURATION, TARGET in DURATION, ...` after `ramp`.
    private mutating func parseRampStages() throws(ParseFailure) -> [RateRamp.Stage] {
        var stages: [RateRamp.Stage] = []
        while true {
            try refuseTemplateInRamp()
            guard current.kind == .number, let target = RateText.parse(text(current)) else {
                throw error("expected a rate to ramp to, as in 'ramp 500/s in 30s', found \(found)")
            }
            if let problem = RateText.problem(target, zeroAllowed: true) { throw error("\(problem), found \(found)") }
            advance()
            guard isKeyword("in") else { throw error("expected 'in' and a duration after the rate, as in 'ramp 500/s in 30s', found \(found)") }
            advance()
            try refuseTemplateInRamp()
            let range = current.range
            let duration = try parseDuration()
            guard duration > .zero else { throw error("a stage of a ramp lasts more than zero", at: range) }
            stages.append(RateRamp.Stage(target: target, duration: duration))
            guard current.kind == .comma else { return stages }
            advance()
        }
    }

    /// `if COND { } [else { } | else if ...]`.
    private mutating func parseConditional(_ context: BlockContext, attributes: inout SyntaxAttributes) throws(ParseFailure) -> SyntaxNodeKind {
        let condition = try parseCondition()
        var ignored = SyntaxAttributes()
        let then = try parseBlock(context.child(.clause("if"), nodeIsParallelChild: false), after: "the condition", attributes: &ignored)
        guard isKeyword("else") else {
            return .conditional(condition: condition, then: then, otherwise: nil)
        }
        advance()
        if isKeyword("if") {
            // `else if`: an `if` alone in the else branch. Counts as a level
            // of nesting, so a long chain cannot exhaust the stack.
            let start = current.range
            guard depth < Parser.maximumDepth else {
                throw error("blocks nested too deeply (the limit is \(Parser.maximumDepth))")
            }
            depth += 1
            defer { depth -= 1 }
            let node = try parseGroup(label: nil, context.child(.clause("else"), nodeIsParallelChild: false))
            let otherwise = SyntaxBlock(statements: [.node(node)], range: start.extended(to: current.range))
            return .conditional(condition: condition, then: then, otherwise: otherwise)
        }
        let otherwise = try parseBlock(context.child(.clause("else"), nodeIsParallelChild: false), after: "'else'", attributes: &ignored)
        return .conditional(condition: condition, then: then, otherwise: otherwise)
    }

    /// `STRING == STRING`, `STRING != STRING`, `exists STRING`, `not COND`.
    private mutating func parseCondition() throws(ParseFailure) -> Condition {
        var negations = 0
        while isKeyword("not") {
            negations += 1
            advance()
        }
        var condition: Condition
        if isKeyword("exists") {
            advance()
            condition = .exists(try parseTemplate("after 'exists' (a path)"))
        } else {
            guard current.kind.isString else {
                if current.kind == .identifier {
                    throw error(
                        "expected a condition, found '\(text(current))'; compare strings, as in '\"{{\(text(current))}}\" == \"yes\"', or write 'exists \"PATH\"' or 'not ...'"
                    )
                }
                throw error("expected a condition (STRING == STRING, STRING != STRING, exists STRING, not ...), found \(found)")
            }
            let left = try parseTemplate("")
            let isEqual: Bool
            switch current.kind {
            case .equalEqual: isEqual = true
            case .bangEqual: isEqual = false
            case .equal: throw error("'=' assigns; compare with '=='")
            default: throw error("expected '==' or '!=' after the string, found \(found)")
            }
            advance()
            let right = try parseTemplate("to compare with")
            condition = isEqual ? .equal(left, right) : .notEqual(left, right)
        }
        // `not not C` is C: keep at most one level, whatever was written.
        if negations % 2 == 1 {
            condition = .not(condition)
        }
        return condition
    }

    /// `["a", "b"]`, `lines(S)`, `split(S)`, `glob(S)`, `range(A, B)`.
    private mutating func parseList() throws(ParseFailure) -> ListSource {
        if current.kind == .leftBracket {
            advance()
            var items: [Template] = []
            skipNewlines()
            while current.kind != .rightBracket {
                items.append(try parseTemplate("as a list item"))
                skipNewlines()
                if current.kind == .comma {
                    advance()
                    skipNewlines()
                } else if current.kind != .rightBracket {
                    throw error("expected ',' or ']' in the list, found \(found)")
                }
            }
            advance()
            return .items(items)
        }
        guard current.kind == .identifier else {
            throw error("expected a list after 'in' ([\"a\", \"b\"], lines(FILE), split(STRING), glob(PATTERN) or range(A, B)), found \(found)")
        }
        let function = text(current)
        let functionStart = current.start
        let functions = LanguageTable.listFunctions.map(\.name)
        guard functions.contains(function) else {
            throw error(
                "unknown list '\(function)'\(Suggestion.phrase(for: function, among: functions))",
                notes: [.init("a list is [\"a\", \"b\"], lines(FILE), split(STRING), glob(PATTERN) or range(A, B)")])
        }
        advance()
        _ = try expect(.leftParen, "after '\(function)'")
        let list: ListSource
        if function == "range" {
            let low = try parseRangeBound()
            _ = try expect(.comma, "between the bounds of range")
            let high = try parseRangeBound()
            if let lowValue = low.literalValue.flatMap({ Int($0) }), let highValue = high.literalValue.flatMap({ Int($0) }), lowValue > highValue {
                diagnostics.error(
                    "range(\(lowValue), \(highValue)) is empty; the first bound must not be above the second",
                    at: SourceRange(start: functionStart, end: current.end))
            }
            list = .range(low, high)
        } else {
            let argumentRange = current.range
            let argument = try parseTemplate("in \(function)(...)")
            // `split("unit integration e2e")` is one item: split splits
            // lines. Words on one line were surely meant as several.
            if function == "split", let text = argument.literalValue, !text.contains(where: \.isNewline),
                text.split(separator: " ", omittingEmptySubsequences: true).count > 1
            {
                let words = text.split(separator: " ").map { "\"\($0)\"" }.joined(separator: ", ")
                diagnostics.warning(
                    "split(...) splits lines: this text is one line, so the list has one item, '\(text)'",
                    at: argumentRange, notes: [.init("for one item per word, write [\(words)]")])
            }
            switch function {
            case "lines": list = .lines(argument)
            case "split": list = .split(argument)
            default: list = .glob(argument)
            }
        }
        _ = try expect(.rightParen, "to close '\(function)('")
        return list
    }

    /// An integer, or a string that must give one at run time.
    private mutating func parseRangeBound() throws(ParseFailure) -> Template {
        if current.kind == .number {
            let word = text(current)
            guard Int(word) != nil else { throw error("expected an integer, found '\(word)'") }
            advance()
            return .literal(word)
        }
        return try parseTemplate("or an integer as a bound of range")
    }

    private mutating func skipNewlines() {
        while current.kind == .newline { advance() }
    }
}
