import Foundation
import PromiseTestSupport
import Testing
import WorkflowTestSupport

@testable import PromiseEngine
@testable import WorkflowLanguage
@testable import WorkflowModel
@testable import WorkflowRun

@Suite("JSON renderer")
struct JSONRendererTests {
    @Test func smallWorkflow() throws {
        let workflow = try workflow(
            """
            workflow "j"
            var v = "1"
            a: sh "echo {{v}}" {
              timeout 5s
              expect exit 0
            }
            """, path: "dir/j.workflow")
        #expect(
            JSONRenderer().render(workflow) == """
                {
                  "workflow": "j",
                  "file": "dir/j.workflow",
                  "directory": "dir",
                  "variables": [
                    {
                      "type": "var",
                      "name": "v",
                      "value": "1",
                      "line": 2,
                      "column": 5
                    }
                  ],
                  "body": [
                    {
                      "type": "step",
                      "id": "a",
                      "label": "a",
                      "kind": "sh",
                      "line": 3,
                      "column": 1,
                      "timeout": "5s",
                      "executor": "local",
                      "command": "echo {{v}}",
                      "expect": [
                        "exit 0"
                      ]
                    }
                  ]
                }

                """)
    }

    @Test func everyExampleGivesValidJSON() throws {
        for file in Fixtures.workflowFiles(in: Fixtures.spec) + Fixtures.workflowFiles(in: Fixtures.workflows) {
            let workflow = try workflow(try Fixtures.text(file), path: file.lastPathComponent)
            let data = Data(JSONRenderer().render(workflow).utf8)
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            #expect(object?["workflow"] as? String == workflow.name, "\(file.lastPathComponent)")
        }
    }
}
