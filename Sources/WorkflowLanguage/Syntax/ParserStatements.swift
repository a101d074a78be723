import PromiseEngine
import WorkflowModel

// Statements of a block: what each keyword starts, declarations, catch and
// ensure, and attributes written as statements in a group's block.

extension Parser {
    /// The keywords that start a statement, for suggestions: statements,
    /// and the attributes a group's block may hold (LanguageTable).
    static let statementKeywords =
        LanguageTable.statementWords
        + LanguageTable.attributes(for: "group").filter { !LanguageTable.statementWords.contains($0) }
    static let stepKeywords = Set(LanguageTable.stepKinds.map(\.name))
    static let groupKeywords = Set(LanguageTable.groupKinds.map(\.name))

    mutating func parseStatement(_ context: BlockContext, attributes: inout SyntaxAttributes, file: inout SyntaxFile) throws(ParseFailure)
        -> SyntaxStatement?
    {
        var label: SyntaxName?
        if current.kind == .identifier, peekNext().kind == .colon {
            label = SyntaxName(text: text(current), range: current.range)
            declaredNames.insert(text(current))
            advance()
            advance()
            guard current.kind == .identifier else {
                throw error("expected a step or a group after the label '\(label!.text):', found \(found)")
            }
        }
        guard current.kind == .identifier else {
            switch current.kind {
            case .leftBrace:
                throw error("unexpected '{'; a block starts on the line of the statement that opens it")
            case .string, .rawString, .multilineString:
                throw error("expected a statement, found a string; a step starts with its kind, as in 'sh \"make\"'")
            default:
                throw error("expected a statement, found \(found)")
            }
        }
        let keyword = text(current)
        if Parser.stepKeywords.contains(keyword) {
            return .node(try parseStep(label: label, context))
        }
        if Parser.groupKeywords.contains(keyword) {
            return .node(try parseGroup(label: label, context))
        }
        if let label, Parser.statementKeywords.contains(keyword) {
            throw error("a label names a step or a group; '\(keyword)' cannot have one", at: label.range)
        }
        let keywordRange = current.range
        switch keyword {
        case "catch", "ensure":
            return try parseClause(keyword, context)
        case "env":
            advance()
            let (name, value) = try parseAssignment("env")
            return .environment(name: name, value: value)
        case "include":
            throw error("'include' brings a file in at the top level: write it at the start of a line, outside any block")
        case "dotenv":
            advance()
            let path = try parseLiteralString("the path of a .env file (relative to this workflow's folder)")
            var optional = false
            if isKeyword("optional") {
                advance()
                optional = true
            }
            return .dotenv(path: path, optional: optional, keyword: keywordRange)
        case "var", "secret":
            advance()
            let (name, value) = try parseAssignment(keyword)
            if name.text == "env" || name.text == "error" {
                throw error("'\(name.text)' is reserved ({{\(name.text).…}}); choose another name", at: name.range)
            }
            return .variable(SyntaxVariable(name: name, value: value, isSecret: keyword == "secret"))
        case "workflow":
            guard context.owner == .workflow else {
                throw error("'workflow' names the workflow and belongs at the top of the file")
            }
            advance()
            let token = current
            let name = try parseLiteralString("the workflow's name")
            if file.name != nil {
                throw error("the workflow is already named", at: keywordRange.extended(to: token.range))
            }
            file.name = SyntaxName(text: name, range: token.range)
            return nil
        case "timeout", "retry", "needs", "allow-failure", "desc", "on-demand", "executor", "partition", "cpus", "memory", "slurm-options":
            try parseGroupAttribute(keyword, context, into: &attributes)
            return nil
        case "expect" where Parser.thresholdSubjects.contains(text(peekNext())):
            switch context.owner {
            case .group, .lanes: break
            case .workflow, .clause:
                throw error(
                    "'expect \(text(peekNext()))' is a threshold of a group, checked when the group ends; "
                        + "put it in the block of a group (repeat, foreach, parallel, sequence)")
            }
            advance()
            attributes.values.thresholds.append(try parseThreshold(labels: &attributes.thresholdLabels))
            return nil
        case "expect" where peekNext().kind == .identifier && !Parser.expectationSubjects.contains(text(peekNext())):
            // Outside a step's block, `expect WORD` is a threshold: a word
            // that is neither a threshold's subject nor a step's is a
            // misspelling, wherever it is written.
            let subject = peekNext()
            throw error(
                "unknown threshold subject '\(text(subject))'"
                    + Suggestion.phrase(for: text(subject), among: Parser.thresholdSubjects), at: subject.range)
        case "cookies":
            advance()
            guard current.kind == .identifier, text(current) == "off" || text(current) == "on" else {
                throw error("expected 'off' after 'cookies' (the http steps of this block then use no cookie store), found \(found)")
            }
            if text(current) == "on" {
                throw error("'cookies on' is the default; only 'cookies off' can be written", at: current.range)
            }
            if cookiesOffInBlock { throw error("duplicate 'cookies off' in this block", at: keywordRange) }
            advance()
            cookiesOffInBlock = true
            return nil
        case "else":
            throw error("'else' must follow the '}' of an 'if' on the same line")
        default:
            throw unknownStatement(keyword, label: label)
        }
    }

    private mutating func unknownStatement(_ keyword: String, label: SyntaxName?) -> ParseFailure {
        let range = current.range
        if Parser.stepAttributeNames.contains(keyword) {
            return error("'\(keyword)' is an attribute of a step; write it in the step's block, as in 'sh \"...\" { \(keyword) ... }'", at: range)
        }
        let next = peekNext()
        if label == nil, next.kind == .identifier, Parser.stepKeywords.contains(text(next)) || Parser.groupKeywords.contains(text(next)) {
            return error("unknown statement '\(keyword)'; to label a step, write '\(keyword): \(text(next)) ...'", at: range)
        }
        if let alias = Parser.aliases[keyword] {
            return error("unknown statement '\(keyword)'; did you mean '\(alias)'?", at: range)
        }
        return error("unknown statement '\(keyword)'\(Suggestion.phrase(for: keyword, among: Parser.statementKeywords))", at: range)
    }

    /// Words from other tools that mean one of ours.
    static let aliases = [
        "shell": "sh", "run": "sh", "bash": "sh", "command": "exec", "spawn": "exec",
        "echo": "log", "print": "log", "wait": "sleep", "throw": "fail", "error": "fail",
        "finally": "ensure", "always": "ensure", "rescue": "catch", "except": "catch",
        "recover": "catch", "concurrent": "parallel", "for": "foreach", "each": "foreach",
        "let": "var", "const": "var", "set": "var", "export": "env", "request": "http", "fetch": "http",
        "retries": "retry", "attempts": "retry", "depends": "needs", "depends-on": "needs", "after": "needs",
        "description": "desc", "allow_failure": "allow-failure", "continue-on-error": "allow-failure",
        "ignore-errors": "allow-failure", "timeout-minutes": "timeout", "deadline": "timeout",
        "manual": "on-demand",
    ]

    /// `NAME = STRING` after `env`, `var` or `secret`.
    private mutating func parseAssignment(_ keyword: String) throws(ParseFailure) -> (SyntaxName, Template) {
        let name = try expectIdentifier("a name after '\(keyword)'")
        declaredNames.insert(name.text)
        _ = try expect(.equal, "after '\(keyword) \(name.text)'")
        if current.kind == .number {
            let value = text(current)
            advance()
            return (name, .literal(value))
        }
        return (name, try parseTemplate("as the value of '\(name.text)'"))
    }

    /// `catch [KIND...] { }` or `ensure { }`.
    private mutating func parseClause(_ keyword: String, _ context: BlockContext) throws(ParseFailure) -> SyntaxStatement? {
        let keywordRange = current.range
        advance()
        var kinds: [FailureKind] = []
        if keyword == "catch" {
            while current.kind == .identifier {
                let name = text(current)
                guard let kind = FailureKind(rawValue: name) else {
                    let names = FailureKind.allCases.map(\.rawValue)
                    throw error(
                        "unknown failure kind '\(name)'\(Suggestion.phrase(for: name, among: names))",
                        notes: [.init("the kinds are " + names.joined(separator: ", "))])
                }
                if !kinds.contains(kind) { kinds.append(kind) }
                advance()
            }
        }
        var misplaced: String?
        if case .lanes(let group) = context.owner {
            misplaced = group
        }
        let bodyContext = BlockContext(owner: .clause(keyword), insideCatch: context.insideCatch || keyword == "catch", ownerIsParallelChild: false)
        var attributes = SyntaxAttributes()
        let body = try parseBlock(bodyContext, after: "'\(keyword)'", attributes: &attributes)
        if let misplaced {
            diagnostics.error(
                "'\(keyword)' cannot be a direct child of '\(misplaced)': its children run at once, so there is no chain before it; wrap a lane in 'sequence { }'",
                at: keywordRange)
            return nil
        }
        if keyword == "catch" {
            return .catchClause(SyntaxCatch(kinds: kinds, body: body, keyword: keywordRange))
        }
        return .ensure(body: body, keyword: keywordRange)
    }

    /// `timeout`, `retry` or `needs` written as a statement: an attribute of
    /// the group whose block it is in (or of the workflow, for `timeout`).
    private mutating func parseGroupAttribute(_ keyword: String, _ context: BlockContext, into attributes: inout SyntaxAttributes)
        throws(ParseFailure)
    {
        let keywordRange = current.range
        switch context.owner {
        case .workflow:
            // Where process steps run may be said once for the whole workflow.
            guard keyword == "timeout" || Placement.keywords.contains(keyword) else {
                throw error("'\(keyword)' cannot apply to the whole workflow; put it in the block of a step or a group")
            }
            guard keyword == "timeout" else { break }
            // Indented under a step, it reads as the step's; it is not.
            if current.range.start > 0, bytes[current.range.start - 1] != UInt8(ascii: "\n") {
                diagnostics.warning(
                    "this 'timeout' applies to the whole workflow, not to the step above it; to time out a step, "
                        + "write it in the step's block: sh \"...\" { timeout ... }", at: current.range,
                    notes: [.init("a workflow timeout is written at the top level, unindented")])
            }
        case .group, .lanes:
            if keyword == "needs", !context.ownerIsParallelChild {
                throw error("'needs' applies only to a direct child of a parallel group")
            }
        case .clause(let owner):
            if keyword == "on-demand", owner == "catch" || owner == "ensure" { throw error(OnDemandPlaces.insideClause) }
            let what = owner == "if" || owner == "else" ? "an '\(owner)' branch" : "a '\(owner)' body"
            throw error(
                "'\(keyword)' has nothing to apply to in \(what); put it in the block of a step or a group, or wrap these statements in 'sequence { }'"
            )
        }
        advance()
        try parseCommonAttribute(keyword, keywordRange: keywordRange, into: &attributes)
    }

    /// `desc` and `on-demand` are for a labelled step or group: `list`
    /// shows the one, a target names the other.
    mutating func requireLabel(_ label: SyntaxName?, for attributes: SyntaxAttributes) {
        guard label == nil else { return }
        if let range = attributes.descriptionRange {
            diagnostics.error("'desc' describes a labelled step or group, for 'promise-run list'; give this one a label (name: ...)", at: range)
        }
        if let range = attributes.onDemandRange {
            diagnostics.error(
                "'on-demand' keeps a step or group out of a run until a target names it, and a target names a label; "
                    + "give this one a label (name: ...) and run it with 'promise-run FILE name'", at: range)
        }
    }

    /// Sets one placement attribute; a second one is an error.
    private mutating func setOnce<Value>(
        _ field: WritableKeyPath<Placement, Value?>, _ value: Value, _ keyword: String,
        at range: SourceRange, in attributes: inout SyntaxAttributes
    ) throws(ParseFailure) {
        if attributes.values.placement[keyPath: field] != nil { throw error("duplicate '\(keyword)'", at: range) }
        attributes.values.placement[keyPath: field] = value
    }

    /// The arguments of `timeout`, `retry`, `needs` and the placement
    /// attributes.
    mutating func parseCommonAttribute(_ keyword: String, keywordRange: SourceRange, into attributes: inout SyntaxAttributes) throws(ParseFailure) {
        switch keyword {
        case "executor":
            guard current.kind == .identifier else {
                throw error("expected 'local' or 'slurm' after 'executor', found \(found)")
            }
            let word = text(current)
            guard let executor = Placement.ExecutorKind(rawValue: word) else {
                let suggestion = Suggestion.phrase(for: word, among: Placement.ExecutorKind.allCases.map(\.rawValue))
                throw error("unknown executor '\(word)'" + (suggestion.isEmpty ? "; write 'executor local' or 'executor slurm'" : suggestion))
            }
            advance()
            try setOnce(\.executor, executor, keyword, at: keywordRange, in: &attributes)
        case "partition":
            let partition = try parseTemplate("after 'partition' (the Slurm partition's name)")
            try setOnce(\.partition, partition, keyword, at: keywordRange, in: &attributes)
        case "cpus":
            let cpus = try parseInteger("the number of CPUs", range: 1...4096)
            try setOnce(\.cpus, cpus, keyword, at: keywordRange, in: &attributes)
        case "memory":
            let start = current.range
            let memory = try parseTemplate("after 'memory' (an amount such as \"512M\" or \"4G\")")
            if let literal = memory.literalValue, !Placement.isMemoryAmount(literal) {
                throw error(
                    "'\(literal)' is not an amount of memory; write a whole number with K, M, G or T (\"512M\", \"4G\"); "
                        + "a bare number means megabytes, as for srun --mem", at: start)
            }
            try setOnce(\.memory, memory, keyword, at: keywordRange, in: &attributes)
        case "slurm-options":
            let options = try parseTemplate("after 'slurm-options' (more srun options, such as \"--qos=short --gres=gpu:1\")")
            try setOnce(\.slurmOptions, options, keyword, at: keywordRange, in: &attributes)
        case "timeout":
            let duration = try parseDuration()
            if attributes.timeout != nil { throw error("duplicate 'timeout'", at: keywordRange) }
            attributes.timeout = duration
        case "allow-failure":
            if attributes.allowFailure { throw error("duplicate 'allow-failure'", at: keywordRange) }
            attributes.allowFailure = true
        case "on-demand":
            if attributes.values.onDemand { throw error("duplicate 'on-demand'", at: keywordRange) }
            attributes.values.onDemand = true
            attributes.onDemandRange = keywordRange
        case "desc":
            let text = try parseLiteralString("after 'desc' (one line saying what this is for)")
            if text.contains(where: \.isNewline) { throw error("a 'desc' is one line", at: keywordRange) }
            if attributes.description != nil { throw error("duplicate 'desc'", at: keywordRange) }
            attributes.description = text
            attributes.descriptionRange = keywordRange
        case "retry":
            let count = try parseInteger("the number of retries", range: 0...1_000_000)
            var retry = RetryPolicy(count: count)
            while current.kind == .identifier {
                let option = text(current)
                let optionRange = current.range
                advance()
                switch option {
                case "delay":
                    retry.delay = try parseDuration()
                case "backoff":
                    retry.backoff = try parseDuration()
                default:
                    let suggestion = Suggestion.phrase(for: option, among: LanguageTable.retryOptions.map(\.name))
                    throw error(
                        "unknown retry option '\(option)'" + (suggestion.isEmpty ? "; write 'retry N [delay D] [backoff D]'" : suggestion),
                        at: optionRange)
                }
            }
            if retry.delay != nil, retry.backoff != nil {
                throw error("write 'delay' or 'backoff', not both: 'backoff D' waits D, 2D, 4D, ...", at: keywordRange)
            }
            if attributes.retry != nil { throw error("duplicate 'retry'", at: keywordRange) }
            attributes.retry = retry
        default:
            guard current.kind == .identifier else {
                throw error("expected the labels of sibling steps after 'needs', found \(found)")
            }
            while current.kind == .identifier {
                attributes.needs.append(SyntaxName(text: text(current), range: current.range))
                advance()
            }
        }
    }
}
