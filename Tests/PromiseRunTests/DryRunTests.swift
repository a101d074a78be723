import CommandLineOptions
import Foundation
import PromiseEngine
import Testing
import WorkflowLanguage
import WorkflowModel
import WorkflowRun

@testable import PromiseRun

@Suite("Dry run")
struct DryRunTests {
    @Test func overridesEnvironmentAndOptions() throws {
        let source = SourceFile(
            path: "d.workflow",
            text: """
                var target = "debug"
                sh "make {{target}} HOME={{env.HOME}}"
                """)
        let workflow = try #require(WorkflowCompiler.compile(source).workflow)
        var options = RunOptions(file: "d.workflow")
        options.variables = [VariableSetting("target", "release")]
        options.timeout = .seconds(60)
        options.jobs = 3
        options.keepGoing = true
        let output = DryRun.render(workflow, options: options, environment: { $0 == "HOME" ? "/home/u" : nil })
        #expect(
            output == """
                dry run: nothing runs; {{...}} is known only while running
                options: jobs 3, keep-going
                workflow "d"  [timeout 1m]
                ├─ var target = "release"
                └─ sh "make release HOME=/home/u"

                """)
    }
}

@Suite("Graph command")
struct GraphCommandTests {
    @Test func everyFormatRenders() throws {
        let workflow = try #require(WorkflowCompiler.compile(SourceFile(path: "g", text: "a: sh \"x\"")).workflow)
        #expect(GraphCommand.render(workflow, as: .tree).hasPrefix("workflow \"g\""))
        #expect(GraphCommand.render(workflow, as: .dot).hasPrefix("digraph \"g\" {"))
        #expect(GraphCommand.render(workflow, as: .mermaid).hasPrefix("flowchart TD"))
        #expect(GraphCommand.render(workflow, as: .json).hasPrefix("{\n  \"workflow\": \"g\""))
    }
}
