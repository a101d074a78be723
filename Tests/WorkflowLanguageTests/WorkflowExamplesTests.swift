import Foundation
import PromiseTestSupport
import Testing
import WorkflowTestSupport

@testable import PromiseEngine
@testable import WorkflowLanguage
@testable import WorkflowModel

/// The example workflows in workflows/ pass check, and every HTTP request
/// in them goes to an address built from a variable whose default is a
/// loopback address, so tests can point them at a local server.
@Suite("Example workflows")
struct WorkflowExamplesTests {
    static let files = Fixtures.workflowFiles(in: Fixtures.workflows)

    @Test func theExpectedExamplesExist() {
        let names = Set(Self.files.map(\.lastPathComponent))
        for name in ["ci", "fetch-urls", "wait-for-service", "file-pipeline", "mirror-race", "demo"] {
            #expect(names.contains(name + ".workflow"), "missing \(name).workflow")
        }
    }

    @Test(arguments: files)
    func passesCheck(_ file: URL) throws {
        let workflow = try workflow(try Fixtures.text(file), path: file.lastPathComponent)
        for node in workflow.allNodes {
            guard case .step(.http(let request)) = node.kind else { continue }
            guard case .expression(let expression)? = request.url.parts.first, case .variable = expression.reference else {
                Issue.record("\(file.lastPathComponent): \(node.id) requests a URL that does not start with a variable")
                continue
            }
        }
        for variable in workflow.variables {
            guard let value = variable.value.literalValue, value.contains("://") else { continue }
            #expect(value.hasPrefix("http://127.0.0.1:") || value.hasPrefix("http://localhost:"), "\(variable.name) = \(value)")
        }
    }

    @Test func theDemoHasWhatItShows() throws {
        let workflow = try workflow(try Fixtures.text(Fixtures.workflows.appendingPathComponent("demo.workflow")))
        let kinds = Set(workflow.allNodes.map(\.kindName))
        #expect(kinds.isSuperset(of: ["parallel", "race", "http", "sh", "sleep"]))
        #expect(workflow.timeout != nil)
        #expect(workflow.body.statements.contains { if case .catch = $0 { return true } else { return false } })
        #expect(workflow.body.statements.contains { if case .ensure = $0 { return true } else { return false } })
        #expect(workflow.allNodes.contains { $0.attributes.retry != nil })
    }
}
