import Foundation
import Testing

/// HTTP at Hurl's depth, end to end: JSONPath queries (wildcards, filters,
/// `..`) in expectations and captures, against the tests' server on
/// 127.0.0.1.
@Suite("End to end: HTTP at Hurl's depth")
struct HurlDepthTests {
    private func run(_ workflow: String, in space: Workspace) async throws -> WorkflowRun {
        let base = try await TestServers.plain()
        return try await space.run("workflow \"hurl\"\nvar base = \"\(base)\"\n" + workflow)
    }

    @Test("JSONPath: [*], filters and .. give lists that count, contain and exist; each failing says what came")
    func jsonQueries() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await run(
            """
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
        #expect(run.errorMessage(of: "b") == "expected json $.items[?(@.id > 100)] count == 1, but it has 0: []")
        #expect(run.errorMessage(of: "c") == #"expected json $..id to contain "8", got [42,7]"#)
        #expect(run.errorMessage(of: "d") == #"expected json $.items[?(@.id < 10)] not to exist, but it selects [{"id":7,"name":"second"}]"#)
        #expect(run.errorMessage(of: "e") == "expected json $.items[*].color to exist, but it selects nothing")
    }

    @Test("a capture of a JSONPath query is the JSON text of its list")
    func captureQuery() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await run(
            """
            a: http GET "{{base}}/json" { capture names = json "$.items[*].name" }
            log "={{a.names}}"
            """, in: space)
        #expect(run.status == 0, "\(run.stdout)")
        #expect(run.logLines(prefix: "=") == [#"=["first","second"]"#], "\(run.stdout)")
    }

    @Test("a body that is a JSON array at the top level: $[0], $[*], filters, .., count, captures and templates; each failing says what came")
    func topLevelArray() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let array = #"json '[{"id": 1, "name": "ink"}, {"id": 2, "name": "paper"}, {"id": 3, "name": "pen"}]'"#
        let run = try await run(
            """
            a: http POST "{{base}}/mirror" {
              \(array)
              expect json "$[0].id" == 1
              expect json "$[2].name" == "pen"
              expect json "$[*].id" == [1, 2, 3]
              expect json "$[*]" count == 3
              expect json "$[*].id" | count == 3
              expect json "$[?(@.id > 1)].name" == ["paper", "pen"]
              expect json "$..name" contains "ink"
              expect json "." count == 3
              expect json "[1].name" == "paper"
              expect json "$" isList
              capture ids = json "$[*].id"
              capture last = json "$[*].name" | last
            }
            log "={{a.ids}} {{a.last}} {{a.json[1].name}} {{a.body | jsonpath "$[2].id"}} {{a.ids | count}}"
            parallel keep-going {
              b: http POST "{{base}}/mirror" {
                \(array)
                expect json "$[0].id" == 2
              }
              c: http POST "{{base}}/mirror" {
                \(array)
                expect json "$[*].id" == [3, 2, 1]
              }
              d: http POST "{{base}}/mirror" {
                \(array)
                expect json "$[*]" count == 2
              }
              e: http POST "{{base}}/mirror" {
                \(array)
                expect json "$[5].id" exists
              }
              f: http POST "{{base}}/mirror" {
                \(array)
                expect json "$[*].name" contains "ruler"
              }
            }
            """, in: space)
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        #expect(
            run.statuses == ["a succeeded", "log@18:1 succeeded", "b failed", "c failed", "d failed", "e failed", "f failed"],
            "\(run.stdout)\(run.stderr)")
        #expect(run.logLines(prefix: "=") == ["=[1,2,3] pen paper 3 3"], "\(run.stdout)")
        #expect(run.errorMessage(of: "b") == "expected json $[0].id == 2, got 1")
        #expect(run.errorMessage(of: "c") == "expected json $[*].id == [3, 2, 1], got [1,2,3]")
        #expect(
            run.errorMessage(of: "d")
                == #"expected json $[*] count == 2, but it has 3: [{"id":1,"name":"ink"},{"id":2,"name":"paper"},{"id":3,"name":"pen"}]"#)
        #expect(
            run.errorMessage(of: "e")
                == #"expected json $[5].id to exist, but index 5 out of range (3 elements); body: "[{\"id\": 1, \"name\": \"ink\"}, {\"id\": 2, \"name\": \"paper\"}, {\"id\": 3, \"name\": \"pen\"}]""#
        )
        #expect(run.errorMessage(of: "f") == #"expected json $[*].name to contain "ruler", got ["ink","paper","pen"]"#)
    }

    @Test("startsWith and endsWith on a body and a header; sha256 and bytes count of the body; each failing says what came")
    func bodyAsserts() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await run(
            """
            parallel keep-going {
              a: http GET "{{base}}/hello" {
                expect body startsWith "he"
                expect body endsWith "llo"
                expect body not startsWith "llo"
                expect header "Content-Type" startsWith "text/"
                expect header "Content-Type" endsWith "/plain"
                expect header "Content-Type" not startsWith "application/"
                expect header "Content-Type" not endsWith "json"
                expect sha256 == "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
                expect bytes count == 5
              }
              b: http GET "{{base}}/hello" { expect body startsWith "hi" }
              c: http GET "{{base}}/hello" { expect body not endsWith "lo" }
              d: http GET "{{base}}/hello" { expect sha256 == "0000000000000000000000000000000000000000000000000000000000000000" }
              e: http GET "{{base}}/hello" { expect bytes count > 5 }
              f: http GET "{{base}}/hello" { expect header "Content-Type" startsWith "application/" }
              g: http GET "{{base}}/hello" { expect header "Content-Type" endsWith "json" }
              h: http GET "{{base}}/hello" { expect header "Content-Type" not endsWith "plain" }
            }
            """, in: space)
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.statuses == ["a succeeded", "b failed", "c failed", "d failed", "e failed", "f failed", "g failed", "h failed"], "\(run.stdout)")
        #expect(run.errorMessage(of: "b") == #"expected body to start with "hi"; body: "hello""#)
        #expect(run.errorMessage(of: "c") == #"expected body not to end with "lo"; body: "hello""#)
        #expect(
            run.errorMessage(of: "d") == "expected sha256 == 0000000000000000000000000000000000000000000000000000000000000000, "
                + "got 2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824")
        #expect(run.errorMessage(of: "e") == "expected bytes count > 5, but the body has 5 bytes")
        #expect(
            run.errorMessage(of: "f") == #"expected header Content-Type to start with "application/", got "text/plain""#,
            "\(run.errorMessage(of: "f"))")
        #expect(run.errorMessage(of: "g") == #"expected header Content-Type to end with "json", got "text/plain""#, "\(run.errorMessage(of: "g"))")
        #expect(
            run.errorMessage(of: "h") == #"expected header Content-Type not to end with "plain", got "text/plain""#, "\(run.errorMessage(of: "h"))")
    }

    @Test("check refuses a SHA-256 that is not 64 lower-case hex digits, and bytes without count")
    func malformedBodyAsserts() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let short = try await run(#"a: http GET "{{base}}/hello" { expect sha256 == "abc" }"#, in: space)
        #expect(short.status != 0)
        #expect(short.stderr.contains("a SHA-256 is 64 lower-case hex digits, not 3 characters"), "\(short.stderr)")
        let bytes = try await run(#"a: http GET "{{base}}/hello" { expect bytes == 5 }"#, in: space)
        #expect(bytes.stderr.contains("expected 'count' after 'expect bytes'"), "\(bytes.stderr)")
    }

    @Test("fmt keeps the new forms as written and graph shows them")
    func formattedAndShown() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let text = """
            workflow "t"
            a: http GET "http://127.0.0.1:1/x" {
              expect json "$.items[?(@.price > 10)].name" contains "ink"
              expect json "$..id" count == 2
              expect json ".id" not isUuid
              expect body not startsWith "x"
              expect sha256 != "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
              expect bytes count >= 5
            }

            """
        let formatted = try await Binary.run(["fmt", "-"], stdin: text, in: space.folder)
        #expect(formatted.stdout == text, "\(formatted.stdout)\(formatted.stderr)")
        try space.write("t.workflow", text)
        let graph = try await Binary.run(["graph", "t.workflow"], in: space.folder)
        #expect(graph.stdout.contains(#"expect json "$..id" count == 2"#), "\(graph.stdout)")
        #expect(graph.stdout.contains("expect bytes count >= 5"), "\(graph.stdout)")
    }

    @Test("check refuses a malformed JSONPath where it is written")
    func malformedQuery() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await run(
            """
            a: http GET "{{base}}/json" { expect json "$.items[?(id > 1)]" count == 1 }
            """, in: space)
        #expect(run.status != 0)
        #expect(run.stderr.contains("invalid JSON path: a JSON path filter starts with '@'"), "\(run.stderr)")
    }
}
