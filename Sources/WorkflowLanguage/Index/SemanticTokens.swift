import WorkflowModel

/// The words of a file by what they are, for an editor's semantic
/// highlighting: the legend is the language table's kinds of
/// word; the tokens come from the lexer, in order, on one line each.
/// See docs/language.md, 'Editors'.
package enum SemanticTokens {
    /// The token types, in legend order (an index into it is a token's type).
    package enum Kind: Int, CaseIterable, Sendable {
        case keyword, property, enumMember, function, label, variable, string, comment, number, `operator`

        /// The LSP name of the type (`label` is a step's label).
        package var name: String {
            switch self {
            case .keyword: return "keyword"
            case .property: return "property"
            case .enumMember: return "enumMember"
            case .function: return "function"
            case .label: return "namespace"
            case .variable: return "variable"
            case .string: return "string"
            case .comment: return "comment"
            case .number: return "number"
            case .operator: return "operator"
            }
        }
    }

    /// One classified run of bytes.
    package struct Token: Equatable, Sendable {
        package var start: Int
        package var end: Int
        package var kind: Kind
    }

    /// Statement words (steps, groups, declarations): keywords.
    private static let keywords = Set(LanguageTable.statementWords + ["else", "in", "of", "matches", "contains", "not", "is"])
    private static let attributes = Set(LanguageTable.attributes.map(\.name))
    /// Words that name one of a closed set: file operations, subjects,
    /// catch kinds, parallel and retry options, list functions.
    private static let members = Set(
        (LanguageTable.fileOperations + LanguageTable.expectationSubjects + LanguageTable.thresholdSubjects
            + LanguageTable.catchKinds + LanguageTable.parallelOptions + LanguageTable.retryOptions).map(\.name))
    private static let functions = Set(LanguageTable.listFunctions.map(\.name))

    /// The tokens of `bytes`, sorted, none spanning a line break.
    package static func tokens(of bytes: [UInt8]) -> [Token] {
        var lexer = Lexer(bytes: bytes)
        var diagnostics = DiagnosticBag()
        var found: [Token] = []
        var previousEnd = 0
        var atStatementStart = true
        var previous: TokenKind = .newline
        var lastWord = ""
        func comments(before offset: Int) {
            var index = previousEnd
            while index < offset {
                if bytes[index] == UInt8(ascii: "#") {
                    var end = index
                    while end < offset, bytes[end] != 0x0A, bytes[end] != 0x0D { end += 1 }
                    found.append(Token(start: index, end: end, kind: .comment))
                    index = end
                } else {
                    index += 1
                }
            }
        }
        func add(_ start: Int, _ end: Int, _ kind: Kind) {
            // One line each: a """ string is cut at its line breaks.
            var lineStart = start
            for index in start..<end where bytes[index] == 0x0A {
                if index > lineStart { found.append(Token(start: lineStart, end: bytes[index - 1] == 0x0D ? index - 1 : index, kind: kind)) }
                lineStart = index + 1
            }
            if end > lineStart { found.append(Token(start: lineStart, end: end, kind: kind)) }
        }
        while true {
            let token = lexer.next(&diagnostics)
            comments(before: token.start)
            if token.kind == .endOfFile { break }
            let text = String(decoding: bytes[token.start..<token.end], as: UTF8.self)
            switch token.kind {
            case .identifier:
                let nextIsColon = token.end < bytes.count && bytes[token.end] == UInt8(ascii: ":")
                if atStatementStart && nextIsColon {
                    add(token.start, token.end, .label)
                } else if keywords.contains(text) && (atStatementStart || previous == .colon || text == "else" || previous == .rightBrace) {
                    add(token.start, token.end, .keyword)
                } else if atStatementStart && attributes.contains(text) {
                    add(token.start, token.end, .property)
                } else if functions.contains(text) && token.end < bytes.count && bytes[token.end] == UInt8(ascii: "(") {
                    add(token.start, token.end, .function)
                } else if members.contains(text) || keywords.contains(text) {
                    add(token.start, token.end, members.contains(text) ? .enumMember : .keyword)
                } else if previous == .identifier, ["var", "secret", "env", "foreach"].contains(lastWord) {
                    add(token.start, token.end, .variable)
                }
                lastWord = text
            case .number: add(token.start, token.end, .number)
            case .string, .rawString, .multilineString: add(token.start, token.end, .string)
            case .equal, .equalEqual, .bangEqual, .less, .lessEqual, .greater, .greaterEqual: add(token.start, token.end, .operator)
            default: break
            }
            atStatementStart = token.kind == .newline || token.kind == .semicolon || token.kind == .leftBrace
            previous = token.kind
            previousEnd = token.end
        }
        return found
    }
}
