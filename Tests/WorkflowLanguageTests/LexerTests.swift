import PromiseTestSupport
import Testing
import WorkflowTestSupport

@testable import PromiseEngine
@testable import WorkflowLanguage
@testable import WorkflowModel

@Suite("Lexer")
struct LexerTests {
    /// The kinds and texts of all tokens of `text`, and the diagnostics.
    private func lex(_ text: String) -> (tokens: [(TokenKind, String)], errors: [String]) {
        let bytes = Array(text.utf8)
        var lexer = Lexer(bytes: bytes)
        var bag = DiagnosticBag()
        var tokens: [(TokenKind, String)] = []
        while true {
            let token = lexer.next(&bag)
            if token.kind == .endOfFile { break }
            tokens.append((token.kind, String(decoding: bytes[token.start..<token.end], as: UTF8.self)))
        }
        return (tokens, bag.diagnostics.map(\.message))
    }

    private func kinds(_ text: String) -> [TokenKind] {
        lex(text).tokens.map(\.0)
    }

    @Test func labelsIdentifiersAndSeparators() {
        let result = lex("build-1: sh \"x\"; b\n")
        #expect(result.tokens.map(\.0) == [.identifier, .colon, .identifier, .string, .semicolon, .identifier, .newline])
        #expect(result.tokens[0].1 == "build-1")
        #expect(result.errors.isEmpty)
    }

    @Test func commentsRunToTheEndOfTheLineButNotInsideStrings() {
        let result = lex("log \"a # b\" # comment\n# whole line\nx")
        #expect(result.tokens.map(\.1) == ["log", "\"a # b\"", "\n", "\n", "x"])
    }

    @Test func numbersKeepUnitsClassesAndRanges() {
        let result = lex("1m30s 250ms 2xx 200-299 -1 9.5 42")
        #expect(result.tokens.map(\.0) == Array(repeating: .number, count: 7))
        #expect(result.tokens.map(\.1) == ["1m30s", "250ms", "2xx", "200-299", "-1", "9.5", "42"])
    }

    @Test func operators() {
        #expect(
            kinds("== != < <= > >= = , ( ) [ ] { }") == [
                .equalEqual, .bangEqual, .less, .lessEqual, .greater, .greaterEqual, .equal,
                .comma, .leftParen, .rightParen, .leftBracket, .rightBracket, .leftBrace, .rightBrace,
            ])
    }

    @Test func aStringInsideInterpolationDoesNotEndTheString() {
        let result = lex(#""{{env.HOME ?? "/root"}}/bin" next"#)
        #expect(result.tokens.map(\.0) == [.string, .identifier])
        #expect(result.tokens[0].1 == #""{{env.HOME ?? "/root"}}/bin""#)
    }

    @Test func escapedQuoteDoesNotEndTheString() {
        #expect(lex(#""a \" b" c"#).tokens.map(\.0) == [.string, .identifier])
    }

    @Test func rawStringsTakeBackslashesAsTheyAre() {
        let result = lex(#"'a\d+ "x"' y"#)
        #expect(result.tokens.map(\.0) == [.rawString, .identifier])
        #expect(result.errors.isEmpty)
    }

    @Test func multilineStringRunsToTheClosingLine() {
        let result = lex("sh \"\"\"\n  a \"quoted\"\n  \"\"\" {\n")
        #expect(result.tokens.map(\.0) == [.identifier, .multilineString, .leftBrace, .newline])
    }

    @Test func unterminatedStringIsReportedOnceAndLexingGoesOn() {
        let result = lex("log \"abc\nnext")
        #expect(result.errors == [#"unterminated string; expected '"' before the end of the line"#])
        #expect(result.tokens.map(\.0) == [.identifier, .invalid, .newline, .identifier])
    }

    @Test func unterminatedInterpolationSaysSo() {
        let result = lex(#"log "{{a"#)
        #expect(result.errors == [#"unterminated '{{' in string; expected '}}' and then '"' before the end of the line"#])
    }

    @Test func unterminatedMultilineString() {
        let result = lex("\"\"\"\nabc\n")
        #expect(result.errors == [#"unterminated multi-line string; expected a line with the closing '"""'"#])
    }

    @Test func multilineStringMustStartAtTheEndOfALine() {
        let result = lex("\"\"\"abc\"\"\"")
        #expect(result.errors == [#"a multi-line string must start with '"""' at the end of a line"#])
    }

    @Test func strayCharactersAreErrors() {
        #expect(lex("@").errors == ["unexpected character '@'"])
        #expect(lex("é").errors == ["unexpected character 'é'"])
        #expect(lex("!x").errors == ["unexpected '!'; did you mean '!=' or 'not'?"])
        #expect(lex("$HOME").errors.first?.hasPrefix("unexpected '$'") == true)
    }

    @Test func byteOrderMarkIsSkipped() {
        #expect(kinds("\u{FEFF}sh") == [.identifier])
    }

    @Test func windowsLineEndsAreOneNewline() {
        #expect(kinds("a\r\nb") == [.identifier, .newline, .identifier])
    }

    @Test func nestingOfStringsInsideInterpolationIsBounded() {
        var text = "\""
        for _ in 0..<40 { text += "{{env.A ?? \"" }
        let result = lex(text)
        #expect(result.errors.first?.hasPrefix("strings nested too deeply") == true)
    }
}
