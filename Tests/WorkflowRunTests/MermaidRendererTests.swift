import PromiseTestSupport
import Testing
import WorkflowTestSupport

@testable import PromiseEngine
@testable import WorkflowLanguage
@testable import WorkflowModel
@testable import WorkflowRun

@Suite("Mermaid renderer")
struct MermaidRendererTests {
    @Test func flowchart() throws {
        let workflow = try workflow(
            """
            a: sh "echo \\"hi\\" | tr a b"
            if "{{a.stdout}}" == "x" {
              log "yes"
            }
            """, path: "m.workflow")
        #expect(
            MermaidRenderer().render(workflow) == """
                flowchart TD
                  n1(["workflow m"])
                  n2("a: sh echo #quot;hi#quot; #124; tr a b")
                  n6(((\"end\")))
                  subgraph c3 ["if"]
                    n4{"if #quot;{{a.stdout}}#quot; == #quot;x#quot;"}
                    n5("log yes")
                  end
                  n4 -->|then| n5
                  n2 --> n4
                  n1 --> n2
                  n4 --> n6
                  n5 --> n6

                """)
    }
}
