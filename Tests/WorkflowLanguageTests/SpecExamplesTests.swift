import Foundation
import PromiseTestSupport
import Testing
import WorkflowTestSupport

@testable import PromiseEngine
@testable import WorkflowLanguage
@testable import WorkflowModel

/// Every example of the language spec passes check. The fixtures copy the
/// spec's examples (the expectation lines of §6 each placed in a step of a
/// kind they apply to).
@Suite("Spec examples")
struct SpecExamplesTests {
    static let files = Fixtures.workflowFiles(in: Fixtures.spec)

    @Test(arguments: files)
    func passesCheck(_ file: URL) throws {
        let result = compile(try Fixtures.text(file), path: file.lastPathComponent)
        #expect(result.renderedDiagnostics() == "")
        #expect(result.workflow != nil)
    }

    /// When the spec is beside the checkout (as in CI), its first example
    /// is the fixture, verbatim.
    @Test func firstLookIsTheSpecVerbatim() throws {
        let spec = Fixtures.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/spec/language.md")
        guard let text = try? String(contentsOf: spec, encoding: .utf8) else { return }
        let fence = "```\n"
        let start = try #require(text.range(of: fence))
        let end = try #require(text.range(of: "```", range: start.upperBound..<text.endIndex))
        let example = String(text[start.upperBound..<end.lowerBound])
        #expect(try Fixtures.text(Fixtures.spec.appendingPathComponent("01-first-look.workflow")) == example)
    }

    @Test func firstLookHasTheExpectedShape() throws {
        let workflow = try workflow(try Fixtures.text(Fixtures.spec.appendingPathComponent("01-first-look.workflow")))
        #expect(workflow.name == "ci")
        #expect(workflow.timeout == .seconds(1200))
        #expect(workflow.variables.map(\.name) == ["config"])
        #expect(workflow.allNodes.map(\.id) == ["build", "parallel@12:1", "unit", "lint", "health", "log@21:3", "rethrow@22:3", "file@25:3"])
    }
}
