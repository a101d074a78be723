import Testing

@testable import WorkflowRun

/// `lines("file")`: the lines a foreach runs over.
@Suite("lines(): the lines of a list file")
struct ListLinesTests {
    @Test("LF and CR LF end a line; blank lines and a missing last newline are as a reader expects")
    func lines() {
        #expect(WorkflowExecutor.nonEmptyLines("") == [])
        #expect(WorkflowExecutor.nonEmptyLines("\n\n") == [])
        #expect(WorkflowExecutor.nonEmptyLines("a\nb\n") == ["a", "b"])
        #expect(WorkflowExecutor.nonEmptyLines("a\r\nb\r\n") == ["a", "b"])
        #expect(WorkflowExecutor.nonEmptyLines("a\n \t\n\u{0B}\u{0C}\r\nlast") == ["a", "last"])
        // Inner spaces and a trailing space are the line's own.
        #expect(WorkflowExecutor.nonEmptyLines(" x y \n") == [" x y "])
        #expect(WorkflowExecutor.nonEmptyLines("é\nü\r") == ["é", "ü"])
        #expect(WorkflowExecutor.nonEmptyLines("\r") == [])
    }
}
