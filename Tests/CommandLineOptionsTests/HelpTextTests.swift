import CommandLineOptions
import Foundation
import Testing
import WorkflowLanguage
import WorkflowModel

@Suite("Help")
struct HelpTextTests {
    @Test func helpTeachesOptionsExamplesAndExitCodes() {
        for piece in [
            "usage:", "--jobs", "--http-connections", "--keep-going", "--timeout", "--var", "--report",
            "--output", "--color", "--quiet", "--verbose", "--dry-run", "--format", "examples:", "exit codes:", "124", "130",
        ] {
            #expect(HelpText.help.contains(piece), "help lacks \(piece)")
        }
    }
}

@Suite("Help example")
struct HelpExampleTests {
    /// The example workflow in --help passes check.
    @Test func theExampleInTheHelpIsValid() throws {
        let text = HelpText.help
        let start = try #require(text.range(of: "a workflow (ci.workflow):\n"))
        let end = try #require(text.range(of: "\nexamples:"))
        let lines = text[start.upperBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
        let example = lines.map { $0.hasPrefix("  ") ? String($0.dropFirst(2)) : String($0) }.joined(separator: "\n")
        let result = WorkflowCompiler.compile(SourceFile(path: "ci.workflow", text: example))
        #expect(result.renderedDiagnostics() == "")
        #expect(result.workflow?.allNodes.count == 6)
    }
}
