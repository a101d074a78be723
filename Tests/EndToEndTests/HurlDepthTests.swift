import Foundation
import Testing

/// Spec §23 end to end: JSONPath queries (wildcards, filters, `..`) in
/// expectations and captures, against the tests' server on 127.0.0.1.
@Suite("End to end: HTTP at Hurl's depth")
struct HurlDepthTests {
    private func run(_ workflow: String, in space: Workspace) throws -> WorkflowRun {
        let base = try TestServers.plain()
        return try space.run("workflow \"hurl\"\nvar base = \"\(base)\"\n" + workflow)
    }

    private func error(_ run: WorkflowRun, _ step: String) -> String {
        (run.step(step)?["error"] as? [String: Any])?["message"] as? String ?? ""
    }

    @Test("JSONPath: [*], filters and .. give lists that count, contain and exist; each failing says what came")
    func jsonQueries() throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try run("""
        parallel keep-going {
          a: http GET "{{base}}/json" {
            expect json "$.items[*].id" count == 2
            expect json "$.items[*].id" contains "7"
            expect json "$..name" contains "second"
            expect json "$.items[?(@.id > 10)].name" contains "first"
            expect json "$.items[?(@.name == 'second')]" exists
            expect json "$.items[?(@.id > 100)]" not exists
            expect json "$.items[0].id" == 42
          }
          b: http GET "{{base}}/json" { expect json "$.items[?(@.id > 100)]" count == 1 }
          c: http GET "{{base}}/json" { expect json "$..id" contains "8" }
          d: http GET "{{base}}/json" { expect json "$.items[?(@.id < 10)]" not exists }
          e: http GET "{{base}}/json" { expect json "$.items[*].color" exists }
        }
        """, in: space)
        #expect(run.statuses == ["a succeeded", "b failed", "c failed", "d failed", "e failed"], "\(run.stdout)")
        #expect(error(run, "b") == "expected json $.items[?(@.id > 100)] count == 1, but it has 0: []")
        #expect(error(run, "c") == #"expected json $..id to contain "8", got [42,7]"#)
        #expect(error(run, "d") == #"expected json $.items[?(@.id < 10)] not to exist, but it selects [{"id":7,"name":"second"}]"#)
        #expect(error(run, "e") == "expected json $.items[*].color to exist, but it selects nothing")
    }

    @Test("a capture of a JSONPath query is the JSON text of its list")
    func captureQuery() throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try run("""
        a: http GET "{{base}}/json" { capture names = json "$.items[*].name" }
        log "={{a.names}}"
        """, in: space)
        #expect(run.status == 0, "\(run.stdout)")
        #expect(run.logLines(prefix: "=") == [#"=["first","second"]"#], "\(run.stdout)")
    }

    @Test("check refuses a malformed JSONPath where it is written")
    func malformedQuery() throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try run("""
        a: http GET "{{base}}/json" { expect json "$.items[?(id > 1)]" count == 1 }
        """, in: space)
        #expect(run.status != 0)
        #expect(run.stderr.contains("invalid JSON path: a JSON path filter starts with '@'"), "\(run.stderr)")
    }
}
