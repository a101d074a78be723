import PromiseTestSupport
import Testing
import WorkflowTestSupport

@testable import PromiseEngine
@testable import WorkflowLanguage
@testable import WorkflowModel

/// Expectations and captures written back as text read back the same.
@Suite("Expectation text")
struct ExpectationTextTests {
    static let source = #"""
        h: http GET "http://u" {
          expect status 200 2xx 201-204
          expect body contains "a \"quoted\" {{x}} \\ text"
          expect body matches "it's \\d"
          expect header "X-Odd" contains "v"
          expect header "Content-Type" matches 'json'
          expect json "[\"a \\\"b\\\" \\\\ c\"][0]" == "x"
          expect json ".n" >= -2
          expect json ".f" == 1.5
          expect json ".b" != false
          expect json ".z" == null
          expect json "." exists
          capture t = json "[\"k \\\"q\\\"\"]"
          capture e = header "ETag"
          capture v = body matches 'v([0-9]+)'
        }
        """#

    @Test func roundTrip() throws {
        let original = compile("var x = \"\"\n" + Self.source)
        #expect(original.renderedDiagnostics() == "")
        guard case .step(.http(let request))? = original.workflow?.body.nodes.first?.kind else {
            Issue.record("no http step")
            return
        }
        let lines =
            request.expectations.map { "  expect " + ExpectationText.describe($0) }
            + request.captures.map { "  capture " + ExpectationText.describe($0) }
        let again = compile("var x = \"\"\nh: http GET \"http://u\" {\n" + lines.joined(separator: "\n") + "\n}\n")
        #expect(again.renderedDiagnostics() == "")
        guard case .step(.http(let reread))? = again.workflow?.body.nodes.first?.kind else {
            Issue.record("no http step")
            return
        }
        #expect(reread.expectations.count == request.expectations.count)
        for (left, right) in zip(reread.expectations, request.expectations) {
            if right.texts.allSatisfy({ $0.expressions.isEmpty }) {
                #expect(left == right)
            } else {
                // Expressions keep their places in the file, which differ.
                #expect(ExpectationText.describe(left) == ExpectationText.describe(right))
            }
        }
        #expect(reread.captures == request.captures)
    }
}
