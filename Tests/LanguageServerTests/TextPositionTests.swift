import Testing

@testable import LanguageServer

/// Offsets and positions in the three encodings, and where completion is.
@Suite("Positions and completion contexts")
struct TextPositionTests {
    @Test("UTF-16 counts a character outside the BMP as two, UTF-8 as its bytes, UTF-32 as one")
    func encodings() {
        let text = Array("a😀b\né\n".utf8)
        let lines = LineIndex(text)
        let b = 1 + 4
        #expect(lines.position(of: b, .utf16) == TextPosition(line: 0, character: 3))
        #expect(lines.position(of: b, .utf8) == TextPosition(line: 0, character: 5))
        #expect(lines.position(of: b, .utf32) == TextPosition(line: 0, character: 2))
        for encoding in [PositionEncoding.utf8, .utf16, .utf32] {
            for offset in [0, 1, b, b + 1, b + 2, b + 4, text.count] {
                #expect(lines.offset(of: lines.position(of: offset, encoding), encoding) == offset, "\(encoding) \(offset)")
            }
        }
        // Past the end of a line: its end; past the last line: the text's end.
        #expect(lines.offset(of: TextPosition(line: 1, character: 99), .utf16) == b + 1 + 1 + 2)
        #expect(lines.offset(of: TextPosition(line: 9, character: 0), .utf16) == text.count)
        // Inside a surrogate pair: before the character.
        #expect(lines.offset(of: TextPosition(line: 0, character: 2), .utf16) == 1)
    }

    @Test("file URIs and paths, percent-encoding both ways")
    func uris() {
        #expect(DocumentURI.uri(of: "/tmp/a b/é.workflow") == "file:///tmp/a%20b/%C3%A9.workflow")
        #expect(DocumentURI.path(of: "file:///tmp/a%20b/%C3%A9.workflow") == "/tmp/a b/é.workflow")
        #expect(DocumentURI.path(of: "file://localhost/x") == "/x")
        #expect(DocumentURI.path(of: "untitled:1") == nil)
    }

    /// The context at `^` in `text`.
    private func context(_ text: String) -> CompletionContext {
        let marked = Array(text.utf8)
        let cursor = marked.firstIndex(of: UInt8(ascii: "^"))!
        var bytes = marked
        bytes.remove(at: cursor)
        return CompletionContext.at(cursor, in: bytes, lines: LineIndex(bytes))
    }

    @Test("the context at the cursor, from the text being typed")
    func contexts() {
        #expect(context("^") == .statement(owner: nil, afterLabel: false))
        #expect(context("build: ^") == .statement(owner: nil, afterLabel: true))
        #expect(context("build: sh \"x\" {\n  ti^") == .statement(owner: "sh", afterLabel: false))
        #expect(context("get: http GET \"http://u\" {\n  header \"a\" \"{{x}}\"\n  ^") == .statement(owner: "http", afterLabel: false))
        #expect(context("parallel {\n  a: sh \"x\" { timeout 1s }\n  ^") == .statement(owner: "parallel", afterLabel: false))
        #expect(context("if \"{{a}}\" == \"b\" {\n} else {\n  ^") == .statement(owner: "if", afterLabel: false))
        #expect(context("log \"{{ bu^") == .expression("bu"))
        #expect(context("log \"{{build.st^") == .expression("build.st"))
        #expect(context("log \"{{x | tr^") == .filter)
        #expect(context("log \"{{x}} ^") == .none)
        #expect(context("a: sh \"x\" {\n  needs ^") == .needs)
        #expect(context("a: sh \"x\" {\n  expect ^") == .stepExpectation(kind: "sh"))
        #expect(context("load: repeat for 10s {\n  expect ^") == .expectation(inGroup: true))
        #expect(context("repeat 10 parallel ^") == .parallelOption)
        #expect(context("foreach x in [\"a\"] parallel limit 4 ^") == .parallelOption)
        #expect(context("file ^") == .fileOperation)
        #expect(context("x: http ^") == .httpMethod)
        // A predicate after a subject, a field after certificate; none inside a string or after a comparison.
        #expect(context("x: http GET \"u\" {\n  expect json \"$.a b\" not ^") == .predicate)
        #expect(context("x: http GET \"u\" {\n  expect url is^") == .predicate)
        #expect(context("x: http GET \"u\" {\n  expect json \"$.a ^") == .none)
        #expect(context("x: http GET \"u\" {\n  expect json \"$.a\" == ^") == .none)
        #expect(context("x: http GET \"u\" {\n  expect certificate ^") == .certificateField)
        #expect(context("x: http GET \"u\" {\n  capture c = certificate se^") == .certificateField)
        // Braces in strings and comments do not open blocks.
        #expect(context("log \"{\" # {\n^") == .statement(owner: nil, afterLabel: false))
    }
}
