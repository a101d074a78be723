import Testing

@testable import PromiseEngine
@testable import WorkflowLanguage
@testable import WorkflowModel

@Suite("Suggestions")
struct SuggestionTests {
    @Test func closeWords() {
        #expect(Suggestion.closest(to: "timout", among: ["timeout", "retry"]) == "timeout")
        #expect(Suggestion.closest(to: "paralel", among: Parser.statementKeywords) == "parallel")
        #expect(Suggestion.closest(to: "stdot", among: ["stdout", "stderr"]) == "stdout")
        #expect(Suggestion.closest(to: "get", among: HTTPMethod.standard.map(\.rawValue)) == "GET")
    }

    @Test func transpositionIsOneEdit() {
        #expect(Suggestion.editDistance(Array("ab".utf8), Array("ba".utf8), limit: 3) == 1)
        #expect(Suggestion.closest(to: "tset", among: ["test"]) == "test")
    }

    @Test func farWordsGetNoSuggestion() {
        #expect(Suggestion.closest(to: "upper", among: ["trim", "shell", "json", "url"]) == nil)
        #expect(Suggestion.closest(to: "x", among: ["sh"]) == nil)
        #expect(Suggestion.phrase(for: "zzz", among: ["sh"]) == "")
    }
}

@Suite("Suggestions for short words")
struct ShortSuggestionTests {
    @Test func oneOrTwoLettersOnlyForCase() {
        #expect(Suggestion.closest(to: "b", among: ["a"]) == nil)
        #expect(Suggestion.closest(to: "ab", among: ["ac"]) == nil)
        #expect(Suggestion.closest(to: "SH", among: ["sh"]) == "sh")
    }
}
