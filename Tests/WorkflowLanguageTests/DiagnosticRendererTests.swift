import PromiseTestSupport
import Testing
import WorkflowTestSupport

@testable import PromiseEngine
@testable import WorkflowLanguage
@testable import WorkflowModel

@Suite("Diagnostic rendering")
struct DiagnosticRendererTests {
    @Test func theSpecExample() {
        let text = "workflow \"b\"\n\n\n\n\n\n\n\n\n\nbuild: sh \"make\" {\n    timout 10m\n}\n"
        #expect(
            diagnostics(text, path: "build.workflow") == """
                build.workflow:12:5: error: unknown attribute 'timout' for sh; did you mean 'timeout'?
                    timout 10m
                    ^~~~~~

                """)
    }

    @Test func notesWithAndWithoutPlace() {
        let source = SourceFile(path: "x.workflow", text: "ab\ncd\n")
        let diagnostic = Diagnostic(
            .error, "bad", at: SourceRange(start: 3, end: 5),
            notes: [.init("see here", at: SourceRange(start: 0, end: 1)), .init("a hint")])
        #expect(
            DiagnosticRenderer(source: source).render(diagnostic) == """
                x.workflow:2:1: error: bad
                cd
                ^~
                x.workflow:1:1: note: see here
                ab
                ^
                note: a hint

                """)
    }

    @Test func tabsAreKeptSoTheCaretLinesUp() {
        let source = SourceFile(path: "t", text: "\tlog x\n")
        let diagnostic = Diagnostic(.error, "e", at: SourceRange(start: 5, end: 6))
        #expect(DiagnosticRenderer(source: source).render(diagnostic) == "t:1:6: error: e\n\tlog x\n\t    ^\n")
    }

    @Test func multiByteCharactersCountOnceForTheCaret() {
        let source = SourceFile(path: "t", text: "log \"é\" x\n")
        // "x" is at byte 9 (é is two bytes), column 10.
        let diagnostic = Diagnostic(.error, "e", at: SourceRange(start: 9, end: 10))
        #expect(DiagnosticRenderer(source: source).render(diagnostic) == "t:1:10: error: e\nlog \"é\" x\n        ^\n")
    }

    @Test func rangeAcrossLinesIsUnderlinedToTheEndOfTheFirst() {
        let source = SourceFile(path: "t", text: "abc\ndef\n")
        let diagnostic = Diagnostic(.error, "e", at: SourceRange(start: 1, end: 6))
        #expect(DiagnosticRenderer(source: source).render(diagnostic) == "t:1:2: error: e\nabc\n ^~\n")
    }

    @Test func diagnosticAtTheEndOfTheFile() {
        let source = SourceFile(path: "t", text: "ab")
        let diagnostic = Diagnostic(.error, "e", at: SourceRange(start: 2, end: 2))
        #expect(DiagnosticRenderer(source: source).render(diagnostic) == "t:1:3: error: e\nab\n  ^\n")
    }

    @Test func windowsLineEndsAreNotShown() {
        let source = SourceFile(path: "t", text: "ab\r\ncd\r\n")
        let diagnostic = Diagnostic(.error, "e", at: SourceRange(start: 4, end: 5))
        #expect(DiagnosticRenderer(source: source).render(diagnostic) == "t:2:1: error: e\ncd\n^\n")
    }

    @Test func standardInputIsNamed() {
        #expect(diagnostics("sleep 1", path: "-").hasPrefix("<stdin>:1:7: error:"))
    }

    @Test func colorsOnlyWhenAsked() {
        let source = SourceFile(path: "t", text: "x\n")
        let diagnostic = Diagnostic(.error, "e", at: SourceRange(start: 0, end: 1))
        let colored = DiagnosticRenderer(source: source, colored: true).render(diagnostic)
        #expect(colored.contains("\u{1B}[1;31merror:\u{1B}[0m"))
        #expect(colored.contains("\u{1B}[1;32m^\u{1B}[0m"))
        #expect(!DiagnosticRenderer(source: source).render(diagnostic).contains("\u{1B}"))
    }

    @Test func diagnosticsAreSortedByPosition() {
        let result = compile("log \"{{b}}\"\nsleep 1\n")
        #expect(
            result.diagnostics.map(\.message) == [
                "undeclared variable 'b'",
                "missing unit in duration '1'; write a number with a unit: 250ms, 30s, 5m, 1h, 1m30s",
            ])
    }

    @Test func warningsPastTheLimitAreDropped() {
        var bag = DiagnosticBag(limit: 2)
        for index in 0..<5 { bag.warning("w\(index)", at: nil) }
        bag.error("e", at: nil)
        #expect(bag.diagnostics.map(\.message) == ["w0", "w1", "e"])
        #expect(!bag.isFull)
    }

    @Test func theBagStopsAtItsLimit() {
        var bag = DiagnosticBag(limit: 2)
        for index in 0..<5 { bag.error("e\(index)", at: nil) }
        #expect(bag.diagnostics.map(\.message) == ["e0", "e1", "too many errors (2); stopping here"])
        #expect(bag.isFull)
    }
}

@Suite("Diagnostic rendering of odd lines")
struct OddLineRenderingTests {
    @Test func longLinesAreShownAroundTheRange() {
        let text = String(repeating: "a", count: 1000) + "X" + String(repeating: "b", count: 1000)
        let source = SourceFile(path: "t", text: text)
        let rendered = DiagnosticRenderer(source: source).render(Diagnostic(.error, "e", at: SourceRange(start: 1000, end: 1001)))
        let lines = rendered.split(separator: "\n").map(String.init)
        #expect(lines[0] == "t:1:1001: error: e")
        #expect(lines[1] == "…" + String(repeating: "a", count: 80) + "X" + String(repeating: "b", count: 79) + "…")
        #expect(lines[2] == String(repeating: " ", count: 81) + "^")
    }

    @Test func controlCharactersAreNotSentToTheTerminal() {
        let source = SourceFile(path: "t", text: "a\u{1B}[2Jb x")
        let rendered = DiagnosticRenderer(source: source).render(Diagnostic(.error, "e", at: SourceRange(start: 7, end: 8)))
        #expect(rendered == "t:1:8: error: e\na?[2Jb x\n       ^\n")
    }
}

/// Issue 20: a diagnostic quotes at most a few hundred characters.
@Suite("Diagnostics stay short")
struct BoundedDiagnosticTests {
    @Test func aOneMegabyteWordGivesAShortError() {
        let word = String(repeating: "x", count: 1 << 20)
        let rendered = diagnostics("workflow \"w\"\n\(word) \"a\"\n")
        #expect(rendered.utf8.count < 2_000, "\(rendered.utf8.count) bytes")
        #expect(rendered.contains("unknown statement 'xxxx"))
        #expect(rendered.contains("(1048576 bytes)"))
    }
}
