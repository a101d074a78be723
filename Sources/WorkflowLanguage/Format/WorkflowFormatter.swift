import PromiseEngine
package import WorkflowModel

/// `promise-run fmt`: the canonical layout of a workflow file. Two spaces
/// per block, one statement a line (`;` and inline blocks are split), one
/// space between words, at most one blank line between statements,
/// comments kept where they were (on their own line, or after a
/// statement), a step's attributes in a fixed order (the order among
/// `expect`s, headers and form fields kept), a group's own attributes
/// (`desc`, `on-demand`, `timeout`, `retry`, `needs`, `allow-failure`)
/// first in its block. Strings are kept byte for byte (`"""` bodies too,
/// but for their line breaks); every line break of the output is LF.
/// Formatting a formatted file changes nothing, and the lowered graph is
/// the same.
package enum WorkflowFormatter {
    /// The canonical text of a file that parses; nil when it does not
    /// (only a file that parses can be laid out without guessing). A file
    /// that parses but does not check (an included file using its
    /// includer's names) is laid out too.
    package static func format(_ source: SourceFile) -> String? {
        guard source.segments.isEmpty, WorkflowCompiler.parses(source) else { return nil }
        var layout = Layout(bytes: source.bytes)
        let block = layout.parseBlock()
        var lines = layout.print(block, depth: 0)
        while lines.first == "" { lines.removeFirst() }
        while lines.last == "" { lines.removeLast() }
        return lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n"
    }
}

/// The statements of a block, as the formatter sees them: tokens grouped
/// into statements, comments attached.
private struct Layout {
    struct Segment {
        var tokens: [Token] = []
        var block: Block?
        /// A comment after `{` on its line.
        var openComment: String?
    }

    struct Statement {
        var blankBefore = false
        var comments: [String] = []
        var segments: [Segment] = []
        var trailingComment: String?
    }

    struct Block {
        var statements: [Statement] = []
        /// Comments before the closing `}` (or the end of the file).
        var closingComments: [String] = []
        var blankBeforeClosing = false
    }

    let bytes: [UInt8]
    let tokens: [Token]
    /// Every comment: where it starts, its text.
    let comments: [(offset: Int, text: String)]
    private let lineStarts: LineTable
    private var index = 0
    private var nextComment = 0
    /// The line the last statement or comment ended on.
    private var lastLine = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
        var lexer = Lexer(bytes: bytes)
        var diagnostics = DiagnosticBag()
        var tokens: [Token] = []
        while true {
            let token = lexer.next(&diagnostics)
            if token.kind == .endOfFile { break }
            tokens.append(token)
        }
        self.tokens = tokens
        self.lineStarts = SourceFile(path: "", bytes: bytes).lineTable()
        // Comments sit between tokens: find them in the gaps.
        var comments: [(Int, String)] = []
        var previousEnd = 0
        for token in tokens + [Token(kind: .endOfFile, range: SourceRange(start: bytes.count, end: bytes.count))] {
            var offset = previousEnd
            while offset < token.start {
                if bytes[offset] == UInt8(ascii: "#") {
                    var end = offset
                    while end < token.start, bytes[end] != 0x0A, bytes[end] != 0x0D { end += 1 }
                    var text = String(decoding: bytes[offset..<end], as: UTF8.self)
                    while text.hasSuffix(" ") || text.hasSuffix("\t") { text.removeLast() }
                    comments.append((offset, text))
                    offset = end
                } else {
                    offset += 1
                }
            }
            previousEnd = max(previousEnd, token.end)
        }
        self.comments = comments
    }

    private func line(_ offset: Int) -> Int { lineStarts.location(of: offset).line }

    /// A token as written; a `"""` string's line breaks (CRLF, CR) as LF,
    /// like every other line of the output (its value is the same).
    private func text(_ token: Token) -> String {
        let written = bytes[token.start..<token.end]
        guard token.kind == .multilineString else { return String(decoding: written, as: UTF8.self) }
        return String(decoding: LineBreaks.normalized(written), as: UTF8.self)
    }

    /// Comments before `offset` not yet placed.
    private mutating func commentsBefore(_ offset: Int) -> [(offset: Int, text: String)] {
        var taken: [(offset: Int, text: String)] = []
        while nextComment < comments.count, comments[nextComment].offset < offset {
            taken.append(comments[nextComment])
            nextComment += 1
        }
        return taken
    }

    private func isSeparator(_ token: Token) -> Bool { token.kind == .newline || token.kind == .semicolon }

    mutating func parseBlock() -> Block {
        var block = Block()
        while true {
            while index < tokens.count, isSeparator(tokens[index]) { index += 1 }
            let end = index < tokens.count ? tokens[index].start : bytes.count
            var leading: [String] = []
            var firstLine: Int?
            var previousLine = lastLine
            for comment in commentsBefore(end) {
                let commentLine = line(comment.offset)
                if commentLine == lastLine, !block.statements.isEmpty, block.statements[block.statements.count - 1].trailingComment == nil {
                    block.statements[block.statements.count - 1].trailingComment = comment.text
                    previousLine = commentLine
                    continue
                }
                if firstLine == nil { firstLine = commentLine }
                leading.append(comment.text)
                lastLine = commentLine
            }
            guard index < tokens.count, tokens[index].kind != .rightBrace else {
                block.closingComments = leading
                block.blankBeforeClosing = (firstLine ?? 0) - previousLine > 1
                return block
            }
            var statement = Statement()
            statement.comments = leading
            let startLine = firstLine ?? line(tokens[index].start)
            statement.blankBefore = startLine - previousLine > 1
            while index < tokens.count {
                var segment = Segment()
                // Inside `[ ]`, a line break is part of the list, not the statement's end.
                var brackets = 0
                while index < tokens.count, !isSeparator(tokens[index]) || (brackets > 0 && tokens[index].kind == .newline),
                    tokens[index].kind != .leftBrace, tokens[index].kind != .rightBrace
                {
                    if tokens[index].kind == .leftBracket { brackets += 1 }
                    if tokens[index].kind == .rightBracket { brackets = max(0, brackets - 1) }
                    segment.tokens.append(tokens[index])
                    index += 1
                }
                guard index < tokens.count, tokens[index].kind == .leftBrace else {
                    statement.segments.append(segment)
                    break
                }
                let braceLine = line(tokens[index].start)
                index += 1
                lastLine = braceLine
                if nextComment < comments.count, line(comments[nextComment].offset) == braceLine,
                    index >= tokens.count || comments[nextComment].offset < tokens[index].start
                {
                    segment.openComment = comments[nextComment].text
                    nextComment += 1
                }
                segment.block = parseBlock()
                let closeLine = index < tokens.count ? line(tokens[index].start) : lastLine
                if index < tokens.count { index += 1 }  // the '}'
                lastLine = closeLine
                statement.segments.append(segment)
                // `} else {` goes on: more of the same statement on this line.
                guard index < tokens.count, !isSeparator(tokens[index]), tokens[index].kind != .rightBrace,
                    line(tokens[index].start) == closeLine
                else { break }
            }
            if let last = statement.segments.last, let token = last.tokens.last, last.block == nil {
                lastLine = line(token.end)
            }
            block.statements.append(statement)
        }
    }

    // MARK: - Order

    /// A step's attributes, in the order `fmt` writes them: the language
    /// table's.
    private static let stepOrder = LanguageTable.attributes.map(\.name)
    /// A group's own attributes: first in its block, in this order (a
    /// block's `env` is a statement of its own: it applies to what follows).
    private static let groupOrder = LanguageTable.attributes(for: "group")
    private static let stepKinds = Set(LanguageTable.stepKinds.map(\.name))
    private static let groupKinds = Set(LanguageTable.groupKinds.map(\.name))

    /// The step or group keyword of a statement (after its label).
    private func keyword(_ statement: Statement) -> String? {
        guard let tokens = statement.segments.first?.tokens, !tokens.isEmpty else { return nil }
        var position = 0
        if tokens.count > 1, tokens[0].kind == .identifier, tokens[1].kind == .colon { position = 2 }
        guard position < tokens.count, tokens[position].kind == .identifier else { return nil }
        return text(tokens[position])
    }

    private func firstWord(_ statement: Statement) -> String {
        statement.segments.first?.tokens.first.map(text) ?? ""
    }

    private func ordered(_ block: Block, owner: String?) -> Block {
        guard let owner else { return block }
        var block = block
        if Self.stepKinds.contains(owner) {
            let rank = { (statement: Statement) in Self.stepOrder.firstIndex(of: firstWord(statement)) ?? Self.stepOrder.count }
            let sorted = block.statements.enumerated().sorted { lhs, rhs in
                (rank(lhs.element), lhs.offset) < (rank(rhs.element), rhs.offset)
            }
            if sorted.map(\.offset) != Array(block.statements.indices) {
                block.statements = sorted.map(\.element)
                for index in block.statements.indices { block.statements[index].blankBefore = false }
            }
        } else if Self.groupKinds.contains(owner) {
            let attributes = block.statements.enumerated().filter { Self.groupOrder.contains(firstWord($0.element)) }
            let moved = attributes.sorted { lhs, rhs in
                (Self.groupOrder.firstIndex(of: firstWord(lhs.element))!, lhs.offset)
                    < (Self.groupOrder.firstIndex(of: firstWord(rhs.element))!, rhs.offset)
            }
            let rest = block.statements.enumerated().filter { !Self.groupOrder.contains(firstWord($0.element)) }
            let order = moved + rest
            if order.map(\.offset) != Array(block.statements.indices) {
                block.statements = order.map(\.element)
                for index in block.statements.indices where index < moved.count { block.statements[index].blankBefore = false }
                if moved.count < block.statements.count { block.statements[moved.count].blankBefore = false }
            }
        }
        if let first = block.statements.indices.first { block.statements[first].blankBefore = false }
        return block
    }

    // MARK: - Printing

    func print(_ block: Block, depth: Int, owner: String? = nil) -> [String] {
        let block = ordered(block, owner: owner)
        let indent = String(repeating: "  ", count: depth)
        var lines: [String] = []
        // The lanes of a parallel, race or any: labels padded so that the
        // steps line up.
        var labelWidth = 0
        if let owner, GroupKind(rawValue: owner)?.hasLanes == true {
            labelWidth = block.statements.compactMap { label($0)?.count }.max() ?? 0
        }
        for statement in block.statements {
            if statement.blankBefore, !lines.isEmpty { lines.append("") }
            for comment in statement.comments { lines.append(indent + comment) }
            var line = indent
            let owner = keyword(statement)
            for (position, segment) in statement.segments.enumerated() {
                if position > 0 { line += " " }
                line += join(segment.tokens, labelWidth: position == 0 ? labelWidth : 0, indent: indent)
                if let inner = segment.block {
                    line += segment.tokens.isEmpty ? "{" : " {"
                    if let comment = segment.openComment { line += "  " + comment }
                    lines.append(line)
                    // Inside `if`/`else` and the clauses, statements are a chain.
                    let innerOwner = position == 0 ? owner : nil
                    lines += print(inner, depth: depth + 1, owner: innerOwner)
                    line = indent + "}"
                }
            }
            if let comment = statement.trailingComment { line += "  " + comment }
            lines.append(line)
        }
        if block.blankBeforeClosing, !block.closingComments.isEmpty, !lines.isEmpty { lines.append("") }
        for comment in block.closingComments { lines.append(indent + comment) }
        return lines
    }

    /// The statement's label, if it has one.
    private func label(_ statement: Statement) -> String? {
        guard let tokens = statement.segments.first?.tokens, tokens.count > 2,
            tokens[0].kind == .identifier, tokens[1].kind == .colon
        else { return nil }
        return text(tokens[0])
    }

    /// Tokens with one space between them, none inside `( )` and `[ ]`,
    /// before `,` or a label's `:`, or between a name and its `(`; after a
    /// label's `:`, enough spaces to reach `labelWidth`. A list written
    /// over several lines keeps its line breaks (blank lines dropped): its
    /// items two spaces in from the statement's `indent` per open `[`, its
    /// `]` back at the `[`'s line's.
    private func join(_ tokens: [Token], labelWidth: Int = 0, indent: String = "") -> String {
        var text = ""
        var previous: Token?
        var brackets = 0
        for (position, token) in tokens.enumerated() {
            if token.kind == .leftBracket { brackets += 1 }
            if token.kind == .rightBracket { brackets = max(0, brackets - 1) }
            if token.kind == .newline {
                if previous?.kind != .newline {
                    var next = position + 1
                    while next < tokens.count, tokens[next].kind == .newline { next += 1 }
                    let closing = next < tokens.count && tokens[next].kind == .rightBracket
                    text += "\n" + indent + String(repeating: "  ", count: max(0, brackets - (closing ? 1 : 0)))
                }
                previous = token
                continue
            }
            if previous?.kind == .newline {
                text += self.text(token)
                previous = token
                continue
            }
            if position == 2, labelWidth > 0, tokens[0].kind == .identifier, tokens[1].kind == .colon {
                text += String(repeating: " ", count: max(1, labelWidth - self.text(tokens[0]).count + 1))
                text += self.text(token)
                previous = token
                continue
            }
            if let previous {
                let glued: Bool
                switch (previous.kind, token.kind) {
                case (_, .comma), (_, .rightParen), (_, .rightBracket), (.leftParen, _), (.leftBracket, _): glued = true
                case (.identifier, .colon): glued = true
                case (.identifier, .leftParen): glued = true
                default: glued = false
                }
                if !glued { text += " " }
            }
            text += self.text(token)
            previous = token
        }
        return text
    }
}
