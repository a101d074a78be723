import Foundation
import Testing

@Suite("promise-run graph")
struct GraphCommandTests {
    static let workflows = ["ci", "demo", "fetch-urls", "wait-for-service", "file-pipeline", "mirror-race"]

    @Test func everyFormat() async throws {
        let file = "workflows/demo.workflow"
        let tree = try await Binary.run(["graph", file])
        #expect(tree.status == 0)
        #expect(tree.stdout.hasPrefix("workflow \"demo\"  [timeout 2m]\n├─ var port = \"18080\"\n"))
        #expect(tree.stdout.contains("│  ├─ server: sh "))
        let dot = try await Binary.run(["graph", "--format", "dot", file])
        #expect(dot.status == 0)
        #expect(dot.stdout.hasPrefix("digraph \"demo\" {\n"))
        let mermaid = try await Binary.run(["graph", "--format=mermaid", file])
        #expect(mermaid.status == 0)
        #expect(mermaid.stdout.hasPrefix("flowchart TD\n"))
        let json = try await Binary.run(["graph", "--format", "json", file])
        #expect(json.status == 0)
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(object?["workflow"] as? String == "demo")
        let body = try #require(object?["body"] as? [[String: Any]])
        #expect(body.first?["id"] as? String == "site")
        #expect(body.first?["line"] as? Int == 16)
    }

    @Test func errorsStopTheGraph() async throws {
        let outcome = try await Binary.run(["graph", "Tests/Fixtures/Corpus/07-duplicate-label.workflow"])
        #expect(outcome.status == 2)
        #expect(outcome.stdout == "")
        #expect(outcome.stderr.contains("error: duplicate label 'build'"))
    }

    @Test func fromStandardInput() async throws {
        let outcome = try await Binary.run(["graph", "-"], stdin: "a: log \"x\"\n")
        #expect(outcome.status == 0)
        #expect(outcome.stdout == "workflow \"stdin\"\n└─ a: log \"x\"\n")
    }

    /// Graphviz accepts the DOT output of every example.
    @Test(arguments: workflows)
    func graphvizRendersTheDot(_ name: String) async throws {
        let dot = "/usr/bin/dot"
        guard FileManager.default.isExecutableFile(atPath: dot) else {
            // The CI script installs graphviz; without it this test cannot run.
            print("skipping: \(dot) not found (apt-get install graphviz)")
            return
        }
        let graph = try await Binary.run(["graph", "--format", "dot", "workflows/\(name).workflow"])
        #expect(graph.status == 0)
        // Awaited, not waited for on a thread of the pool.
        let rendered = try await Binary.runCommand(dot, ["-Tsvg"], stdin: graph.stdout)
        #expect(rendered.status == 0, "dot: \(rendered.stderr)")
    }
}
