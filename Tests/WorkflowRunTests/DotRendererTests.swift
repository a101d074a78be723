import PromiseTestSupport
import Testing
import WorkflowTestSupport

@testable import PromiseEngine
@testable import WorkflowLanguage
@testable import WorkflowModel
@testable import WorkflowRun

@Suite("DOT renderer")
struct DotRendererTests {
    @Test func chainAndParallelWithNeeds() throws {
        let workflow = try workflow(
            """
            a: sh "x"
            parallel {
              b: sh "y"
              c: sh "z" { needs b }
            }
            """, path: "small.workflow")
        #expect(
            DotRenderer().render(workflow) == """
                digraph "small" {
                  rankdir=TB;
                  compound=true;
                  graph [fontname="Helvetica", fontsize=11];
                  node [fontname="Helvetica", fontsize=11];
                  edge [fontname="Helvetica", fontsize=9];
                  n1 [shape=oval, style=bold, label="workflow small"];
                  n2 [shape=box, style=rounded, label="a: sh x"];
                  n8 [shape=doublecircle, label="end"];
                  subgraph cluster_c3 {
                    label="parallel";
                    style=rounded;
                    n4 [shape=box, style="rounded,filled", fillcolor="#eeeeee", label="start parallel"];
                    n5 [shape=box, style=rounded, label="b: sh y"];
                    n6 [shape=box, style=rounded, label="c: sh z"];
                    n7 [shape=point, label=""];
                  }
                  n4 -> n5;
                  n5 -> n7;
                  n5 -> n6 [label="needs", color=blue];
                  n6 -> n7;
                  n2 -> n4;
                  n1 -> n2;
                  n7 -> n8;
                }

                """)
    }

    @Test func catchAndEnsureEdges() throws {
        let dot = DotRenderer().render(try workflow("a: sh \"x\"\ncatch { log \"c\" }\nensure { log \"e\" }"))
        #expect(dot.contains("[label=\"on failure\", style=dashed, color=red]"))
        #expect(dot.contains("[label=\"always\", style=dotted]"))
        #expect(dot.contains("label=\"catch\""))
        #expect(dot.contains("label=\"ensure\""))
    }

    @Test func quotesAndBackslashesAreEscaped() throws {
        let dot = DotRenderer().render(try workflow(#"sh 'echo "\n" \\'"#))
        #expect(dot.contains(#"label="sh echo \"\\n\" \\\\""#))
    }

    @Test("a quote followed by a combining mark is still escaped")
    func quoteWithCombiningMark() throws {
        let dot = DotRenderer().render(try workflow("sh 'echo \"\u{301} x'"))
        #expect(dot.contains("label=\"sh echo \\\"\u{301} x\""))
    }

    @Test func emptyWorkflowStillHasStartAndEnd() throws {
        let dot = DotRenderer().render(try workflow("# nothing\n"))
        #expect(dot.contains("n1 -> n2;"))
    }
}
