import Testing
@testable import PromiseEngine
@testable import WorkflowModel

@Suite("Filters")
struct FilterFunctionsTests {
    @Test func trim() {
        #expect(Filter.trim.apply(to: " \t a b \n") == "a b")
        #expect(Filter.trim.apply(to: " \n ") == "")
    }

    @Test func shell() {
        #expect(Filter.shell.apply(to: "it's a $x") == #"'it'\''s a $x'"#)
        #expect(Filter.shell.apply(to: "") == "''")
        // An apostrophe with a combining mark after it is one Character to
        // Swift but an apostrophe to the shell: it must still be escaped.
        let sneaky = "x'\u{301}; touch pwned; echo '"
        let expected = #"'x'\''"# + "\u{301}" + #"; touch pwned; echo '\'''"#
        #expect(Array(Filter.shell.apply(to: sneaky).utf8) == Array(expected.utf8))
    }

    @Test func json() {
        #expect(Filter.json.apply(to: "a\"b\\c\nd\u{1}") == #""a\"b\\c\nd\u0001""#)
    }

    @Test func url() {
        #expect(Filter.url.apply(to: "a b/c?d=é~") == "a%20b%2Fc%3Fd%3D%C3%A9~")
    }
}
