import PromiseEngine
import WorkflowModel

/// The kinds of token of the statement level of a workflow file. The inside
/// of `{{ ... }}` has its own small grammar (see `TemplateParser`).
enum TokenKind: UInt8, Sendable {
    /// `[A-Za-z_][A-Za-z0-9_-]*`
    case identifier
    /// A word starting with a digit (or `-` and a digit): an integer, a
    /// duration (`1m30s`), a status class (`2xx`), a range (`200-299`), a
    /// decimal (`9.5`). The parser decides which it must be.
    case number
    /// `"..."`, escaped and interpolated.
    case string
    /// `'...'`, raw.
    case rawString
    /// `"""` ... `"""`, interpolated, indentation removed.
    case multilineString
    case colon, semicolon, newline, comma
    /// `|`: a filter follows (after a capture's or an expectation's subject).
    case pipe
    case leftBrace, rightBrace, leftBracket, rightBracket, leftParen, rightParen
    case equal, equalEqual, bangEqual, less, lessEqual, greater, greaterEqual
    /// A character that starts no token; the lexer has reported it.
    case invalid
    case endOfFile

    /// How the token is named in "expected ..." messages.
    var name: String {
        switch self {
        case .identifier: return "a name"
        case .number: return "a number"
        case .string, .rawString, .multilineString: return "a string"
        case .colon: return "':'"
        case .semicolon: return "';'"
        case .newline: return "end of line"
        case .comma: return "','"
        case .pipe: return "'|'"
        case .leftBrace: return "'{'"
        case .rightBrace: return "'}'"
        case .leftBracket: return "'['"
        case .rightBracket: return "']'"
        case .leftParen: return "'('"
        case .rightParen: return "')'"
        case .equal: return "'='"
        case .equalEqual: return "'=='"
        case .bangEqual: return "'!='"
        case .less: return "'<'"
        case .lessEqual: return "'<='"
        case .greater: return "'>'"
        case .greaterEqual: return "'>='"
        case .invalid: return "an invalid character"
        case .endOfFile: return "end of file"
        }
    }

    var isString: Bool { self == .string || self == .rawString || self == .multilineString }
}

/// A token: its kind and where it is. Its text is read from the source
/// only when needed.
struct Token: Sendable {
    var kind: TokenKind
    var range: SourceRange

    var start: Int { range.start }
    var end: Int { range.end }
}
