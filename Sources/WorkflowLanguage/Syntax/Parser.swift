import PromiseEngine
import WorkflowModel

/// Thrown inside the parser after an error has been reported; the statement
/// loop catches it and skips to the next statement.
struct ParseFailure: Error {}

/// Where a block is, which decides what may be written in it.
struct BlockContext {
    enum Owner: Equatable {
        /// The file itself.
        case workflow
        /// The body of `sequence` or `foreach`: attributes apply to the group.
        case group(String)
        /// The body of `parallel`, `race` or `any`: children start at once.
        case lanes(String)
        /// A `catch` or `ensure` body, or an `if` branch: a chain that is not a node.
        case clause(String)
    }

    var owner: Owner
    /// A group's own block, where `expect` writes a threshold.
    var holdsThresholds: Bool {
        switch owner {
        case .group, .lanes: return true
        case .workflow, .clause: return false
        }
    }
    /// Somewhere inside a catch body: `rethrow` and `{{error.*}}` are allowed.
    var insideCatch: Bool
    /// The group owning this block is a direct child of a parallel group, so
    /// it may have `needs`.
    var ownerIsParallelChild: Bool

    /// The context of a child block of a node written in this block.
    func child(_ owner: Owner, nodeIsParallelChild: Bool) -> BlockContext {
        BlockContext(owner: owner, insideCatch: insideCatch, ownerIsParallelChild: nodeIsParallelChild)
    }

    /// Nodes written in this block are direct children of a parallel group.
    var childrenAreParallelChildren: Bool { owner == .lanes("parallel") }
}

/// The hand-written recursive-descent parser. Every input gives a syntax
/// tree and diagnostics: nothing crashes it, blocks nested deeper than
/// `maximumDepth` are an error (not a stack overflow), and it stops after
/// `DiagnosticBag.limit` errors.
struct Parser {
    /// Deepest nesting of `{ }` blocks accepted.
    static let maximumDepth = 100

    var lexer: Lexer
    var diagnostics: DiagnosticBag
    var current: Token
    private var lookahead: Token?
    let bytes: [UInt8]
    var depth = 0
    /// Where the token before `current` ends: the end of what was parsed.
    var previousEnd = 0
    private var reportedUnclosedBlock = false
    /// Labels and variables of statements that did not parse: the checker
    /// does not report references to them as unknown.
    var brokenNames: Set<String> = []
    /// Set by `cookies off` in the block being parsed.
    var cookiesOffInBlock = false
    /// Labels and variable names declared so far (for the raw-string warning).
    var declaredNames: Set<String> = ["env", "error"]
    /// `{{name}}` seen in '...' strings, warned about at the end when
    /// `name` is declared in the file (else it is likely meant literally).
    var rawInterpolations: [(name: String, range: SourceRange)] = []

    init(source: SourceFile, diagnostics: DiagnosticBag = DiagnosticBag()) {
        self.bytes = source.bytes
        self.lexer = Lexer(bytes: source.bytes)
        self.diagnostics = diagnostics
        self.current = Token(kind: .endOfFile, range: SourceRange(start: 0, end: 0))
        self.current = lexer.next(&self.diagnostics)
    }

    /// Parses a whole file; `brokenNames` are the names declared by
    /// statements that did not parse.
    static func parse(_ source: SourceFile, diagnostics: inout DiagnosticBag) -> (SyntaxFile, brokenNames: Set<String>) {
        var parser = Parser(source: source, diagnostics: diagnostics)
        let file = parser.parseFile()
        for (name, range) in parser.rawInterpolations {
            let first = String(name.prefix { $0 != "." && $0 != "[" })
            guard parser.declaredNames.contains(first) else { continue }
            // A newcomer's trap: '...' is raw, so {{name}} stays as written.
            parser.diagnostics.warning(
                "'{{\(name)}}' in a '...' string is not filled in: '...' strings are raw; write \"...\" to use it",
                at: range,
                notes: [.init("if the braces are for the command itself (a Go template, say), this is fine as it is")])
        }
        diagnostics = parser.diagnostics
        return (file, parser.brokenNames)
    }

    /// The label (`name:`) or declared variable (`var name`, `secret name`,
    /// `foreach name`) of the statement starting at `offset`, read from the
    /// bytes.
    func declaredName(at offset: Int) -> String? {
        func identifier(at start: Int) -> (String, Int)? {
            guard start < bytes.count, Lexer.isIdentifierStart(bytes[start]) else { return nil }
            var end = start
            while end < bytes.count, Lexer.isIdentifierContinue(bytes[end]) { end += 1 }
            return (String(decoding: bytes[start..<end], as: UTF8.self), end)
        }
        func skipSpaces(_ position: Int) -> Int {
            var position = position
            while position < bytes.count, bytes[position] == 0x20 || bytes[position] == 0x09 { position += 1 }
            return position
        }
        guard let (word, end) = identifier(at: offset) else { return nil }
        let next = skipSpaces(end)
        if next < bytes.count, bytes[next] == UInt8(ascii: ":") { return word }
        if word == "var" || word == "secret" || word == "foreach" { return identifier(at: next)?.0 }
        return nil
    }

    mutating func parseFile() -> SyntaxFile {
        var file = SyntaxFile(name: nil, timeout: nil, body: SyntaxBlock(statements: [], range: SourceRange(start: 0, end: bytes.count)))
        var attributes = SyntaxAttributes()
        let context = BlockContext(owner: .workflow, insideCatch: false, ownerIsParallelChild: false)
        var statements: [SyntaxStatement] = []
        while true {
            statements += parseStatements(context, attributes: &attributes, file: &file)
            guard current.kind == .rightBrace, !diagnostics.isFull else { break }
            diagnostics.error("unexpected '}' with no block to close", at: current.range)
            advance()
        }
        file.body.statements = statements
        file.timeout = attributes.timeout
        file.placement = attributes.values.placement
        return file
    }

    // MARK: - Tokens

    mutating func advance() {
        previousEnd = current.end
        if let next = lookahead {
            current = next
            lookahead = nil
        } else {
            current = lexer.next(&diagnostics)
        }
    }

    mutating func peekNext() -> Token {
        if let lookahead { return lookahead }
        let next = lexer.next(&diagnostics)
        lookahead = next
        return next
    }

    func text(_ token: Token) -> String {
        String(decoding: bytes[token.start..<token.end], as: UTF8.self)
    }

    func isKeyword(_ word: String) -> Bool {
        current.kind == .identifier && text(current) == word
    }

    /// Whether the token after the current one is the word `word`.
    mutating func peekKeyword(_ word: String) -> Bool {
        let next = peekNext()
        return next.kind == .identifier && text(next) == word
    }

    /// Describes the current token for "found ..." messages.
    var found: String {
        switch current.kind {
        case .identifier, .number: return "'\(text(current))'"
        case .string, .rawString, .multilineString: return "a string"
        default: return current.kind.name
        }
    }

    /// Reports an error (unless it is about a token the lexer already
    /// reported) and returns the failure to throw.
    mutating func error(_ message: String, at range: SourceRange? = nil, notes: [Diagnostic.Note] = []) -> ParseFailure {
        if current.kind != .invalid || range != nil {
            diagnostics.error(message, at: range ?? current.range, notes: notes)
        }
        return ParseFailure()
    }

    mutating func expectIdentifier(_ what: String) throws(ParseFailure) -> SyntaxName {
        guard current.kind == .identifier else { throw error("expected \(what), found \(found)") }
        let name = SyntaxName(text: text(current), range: current.range)
        advance()
        return name
    }

    mutating func expect(_ kind: TokenKind, _ context: String) throws(ParseFailure) -> Token {
        guard current.kind == kind else { throw error("expected \(kind.name) \(context), found \(found)") }
        let token = current
        advance()
        return token
    }

    // MARK: - Statements and blocks

    /// Statements until `}` or the end of the file (neither consumed).
    mutating func parseStatements(_ context: BlockContext, attributes: inout SyntaxAttributes, file: inout SyntaxFile) -> [SyntaxStatement] {
        let outerCookiesOff = cookiesOffInBlock
        cookiesOffInBlock = false
        var statements: [SyntaxStatement] = []
        defer { cookiesOffInBlock = outerCookiesOff }
        parseEach { parser throws(ParseFailure) in
            if let statement = try parser.parseStatement(context, attributes: &attributes, file: &file) {
                statements.append(statement)
            }
        } failed: { parser, start in
            if let name = parser.declaredName(at: start) { parser.brokenNames.insert(name) }
        }
        if cookiesOffInBlock { SyntaxStatement.turnCookiesOff(&statements) }
        return statements
    }

    /// Parses one statement after another with `statement` until `}` or the
    /// end of the file (neither consumed), each ended by a new line or `;`.
    /// After an error, `failed` hears where the statement started (an offset
    /// in the source), and the rest of it is skipped (`recover`).
    mutating func parseEach(
        _ statement: (inout Parser) throws(ParseFailure) -> Void,
        failed: (inout Parser, Int) -> Void = { _, _ in }
    ) {
        while !diagnostics.isFull {
            switch current.kind {
            case .newline, .semicolon:
                advance()
                continue
            case .endOfFile, .rightBrace:
                return
            default:
                break
            }
            let start = current.start
            do {
                try statement(&self)
                try expectEndOfStatement()
            } catch {
                failed(&self, start)
                recover()
            }
        }
    }

    mutating func expectEndOfStatement() throws(ParseFailure) {
        switch current.kind {
        case .newline, .semicolon: advance()
        case .rightBrace, .endOfFile: break
        case .leftBrace: throw error("unexpected '{'; this statement takes no block")
        default: throw error("expected the end of the statement (a new line or ';'), found \(found)")
        }
    }

    /// Skips the rest of a statement after an error: up to a new line or
    /// `;`, or before the `}` that closes the block; nested blocks are
    /// skipped whole.
    mutating func recover() {
        while !diagnostics.isFull {
            switch current.kind {
            case .newline, .semicolon:
                advance()
                return
            case .rightBrace, .endOfFile:
                return
            case .leftBrace:
                skipBalancedBlock()
            default:
                advance()
            }
        }
    }

    /// From a `{`, skips to after its matching `}` (iteratively).
    mutating func skipBalancedBlock() {
        var open = 0
        while current.kind != .endOfFile, !diagnostics.isFull {
            if current.kind == .leftBrace { open += 1 }
            if current.kind == .rightBrace {
                open -= 1
                if open == 0 {
                    advance()
                    return
                }
            }
            advance()
        }
    }

    /// `{ statements }`. Collects attribute statements (`timeout`, ...) into
    /// `attributes` when the context allows them.
    mutating func parseBlock(_ context: BlockContext, after what: String, attributes: inout SyntaxAttributes) throws(ParseFailure) -> SyntaxBlock {
        guard let open = try openBlock(after: what) else {
            return SyntaxBlock(statements: [], range: current.range)
        }
        defer { depth -= 1 }
        var unusedFile = SyntaxFile(name: nil, timeout: nil, body: SyntaxBlock(statements: [], range: open.range))
        let inline = isInline(open)
        let statements = parseStatements(context, attributes: &attributes, file: &unusedFile)
        let end = closeBlock(open, inline: inline)
        return SyntaxBlock(statements: statements, range: SourceRange(start: open.start, end: end))
    }

    /// Consumes `{` and enters a level of nesting; nil (after an error) when
    /// too deep, having skipped the whole block.
    mutating func openBlock(after what: String) throws(ParseFailure) -> Token? {
        guard current.kind == .leftBrace else {
            if current.kind == .newline {
                throw error("expected '{' after \(what) on the same line")
            }
            throw error("expected '{' after \(what), found \(found)")
        }
        let open = current
        guard depth < Parser.maximumDepth else {
            diagnostics.error("blocks nested too deeply (the limit is \(Parser.maximumDepth))", at: open.range)
            skipBalancedBlock()
            return nil
        }
        advance()
        depth += 1
        return open
    }

    /// True when the block opened by `open` (just consumed) has a statement
    /// on the line of its `{`.
    func isInline(_ open: Token) -> Bool {
        current.kind != .newline && current.kind != .rightBrace && current.kind != .endOfFile
    }

    /// Consumes the `}` closing the block opened by `open`; reports an
    /// unclosed block once, and an `inline` block (one with statements on
    /// the line of its `{`) that does not close on that line.
    /// Returns the end offset of the block.
    mutating func closeBlock(_ open: Token, inline: Bool) -> Int {
        guard current.kind == .rightBrace else {
            if !reportedUnclosedBlock, !diagnostics.isFull {
                reportedUnclosedBlock = true
                diagnostics.error("unclosed '{'; expected '}' before the end of the file", at: open.range)
            }
            return current.end
        }
        if inline, bytes[open.end..<current.start].contains(0x0A) {
            diagnostics.error(
                "a block with a statement on the line of its '{' must close on that line; break the line right after '{'",
                at: open.range)
        }
        let end = current.end
        advance()
        return end
    }
}
