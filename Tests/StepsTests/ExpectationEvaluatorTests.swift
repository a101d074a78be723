import JSON
import PromiseEngine
import Testing
import WorkflowModel

@testable import Steps

/// The decisions of the evaluator on results made by hand (the process and
/// HTTP suites check them end to end).
@Suite("Expectation evaluator")
struct ExpectationEvaluatorTests {
    private func process(
        exit: Int?, signal: Int? = nil, stdout: String = "", stderr: String = "",
        _ expectations: [ResolvedExpectation] = []
    ) -> StepFailure? {
        var result = StepResult(
            stdout: CapturedText(text: stdout), stderr: CapturedText(text: stderr), exitCode: exit,
            terminatingSignal: signal)
        do {
            try ExpectationEvaluator.checkProcess(&result, expectations: expectations, captures: [])
            return nil
        } catch {
            return error
        }
    }

    private func http(status: Int, body: String = "", _ expectations: [ResolvedExpectation] = []) -> StepFailure? {
        var result = StepResult(status: status, body: CapturedText(text: body))
        do {
            try ExpectationEvaluator.checkHTTP(&result, expectations: expectations, captures: [], savedTo: nil)
            return nil
        } catch {
            return error
        }
    }

    @Test func everyExpectExitMustHoldAndTheExitComesFirst() {
        #expect(process(exit: 0) == nil)
        #expect(process(exit: 1)?.kind == .exit)
        #expect(process(exit: 1, [.exit([1])]) == nil)
        #expect(process(exit: 1, [.exit([0, 1]), .exit([1, 2])]) == nil)
        #expect(process(exit: 0, [.exit([0, 1]), .exit([1, 2])])?.message == "expected exit 1 or 2, got 0")
        // An unexpected exit is reported before a failed contains.
        #expect(process(exit: 2, [.contains(.stdout, "x")])?.kind == .exit)
        #expect(process(exit: nil, signal: 15, [.exit([0])])?.kind == .signal)
        #expect(process(exit: nil, signal: 15)?.message == "killed by signal 15 (SIGTERM)")
    }

    @Test func exitMessagesShowTheEndOfStderrElseStdout() {
        #expect(process(exit: 1, stdout: "only out\n")?.message == "expected exit 0, got 1; stdout: \"only out\"")
        let long = (1...100).map { "line \($0)" }.joined(separator: "\n") + "\n"
        let message = process(exit: 1, stdout: "ignored", stderr: long)?.message ?? ""
        #expect(message.hasPrefix("expected exit 0, got 1; stderr: …\""))
        #expect(message.hasSuffix("line 99\\nline 100\""))
        #expect(message.count < 260)
    }

    @Test func statusPatternsAndTheDefault() {
        #expect(http(status: 200) == nil)
        #expect(http(status: 304) == nil)
        #expect(http(status: 404)?.kind == .http)
        #expect(http(status: 404, [.status([.code(404)])]) == nil)
        #expect(http(status: 204, [.status([.range(200...299)])]) == nil)
        #expect(http(status: 302, [.status([.range(200...299)])])?.message == "expected status 2xx, got 302")
        #expect(http(status: 500, body: String(repeating: "e", count: 500))?.message.hasSuffix("…") == true)
    }

    @Test func jsonComparisonRules() throws {
        func holds(_ json: String, _ op: ComparisonOperator, _ literal: ResolvedJSONLiteral) throws -> Bool {
            JSONComparison.holds(try JSONDocument.parse(json), op, literal)
        }
        #expect(try holds("10", .greater, .integer("9")))
        #expect(try holds("10", .equal, .number(10.0)))
        #expect(try holds("\"10\"", .greater, .string("09")))
        #expect(try !holds("\"10\"", .equal, .integer("10")), "a string is not a number")
        #expect(try holds("\"10\"", .notEqual, .integer("10")))
        #expect(try !holds("true", .less, .boolean(true)), "booleans are not ordered")
        #expect(try holds("true", .notEqual, .boolean(false)))
        #expect(try holds("null", .equal, .null))
        #expect(try !holds("0", .equal, .null))
        #expect(try !holds("[1]", .greater, .integer("0")))
    }
}
