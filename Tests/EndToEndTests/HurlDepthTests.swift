import Foundation
import Testing

/// HTTP at Hurl's depth, end to end: JSONPath queries (wildcards, filters,
/// `..`) in expectations and captures, against the tests' server on
/// 127.0.0.1.
@Suite("End to end: HTTP at Hurl's depth")
struct HurlDepthTests {
    private func run(_ workflow: String, in space: Workspace) throws -> WorkflowRun {
        let base = try TestServers.plain()
        return try space.run("workflow \"hurl\"\nvar base = \"\(base)\"\n" + workflow)
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
        #expect(run.errorMessage(of: "b") == "expected json $.items[?(@.id > 100)] count == 1, but it has 0: []")
        #expect(run.errorMessage(of: "c") == #"expected json $..id to contain "8", got [42,7]"#)
        #expect(run.errorMessage(of: "d") == #"expected json $.items[?(@.id < 10)] not to exist, but it selects [{"id":7,"name":"second"}]"#)
        #expect(run.errorMessage(of: "e") == "expected json $.items[*].color to exist, but it selects nothing")
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

    @Test("startsWith and endsWith on a body and a header; sha256 and bytes count of the body; each failing says what came")
    func bodyAsserts() throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try run("""
        parallel keep-going {
          a: http GET "{{base}}/hello" {
            expect body startsWith "he"
            expect body endsWith "llo"
            expect body not startsWith "llo"
            expect header "Content-Type" startsWith "text/"
            expect sha256 == "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
            expect bytes count == 5
          }
          b: http GET "{{base}}/hello" { expect body startsWith "hi" }
          c: http GET "{{base}}/hello" { expect body not endsWith "lo" }
          d: http GET "{{base}}/hello" { expect sha256 == "0000000000000000000000000000000000000000000000000000000000000000" }
          e: http GET "{{base}}/hello" { expect bytes count > 5 }
        }
        """, in: space)
        #expect(run.statuses == ["a succeeded", "b failed", "c failed", "d failed", "e failed"], "\(run.stdout)")
        #expect(run.errorMessage(of: "b") == #"expected body to start with "hi"; body: "hello""#)
        #expect(run.errorMessage(of: "c") == #"expected body not to end with "lo"; body: "hello""#)
        #expect(run.errorMessage(of: "d") == "expected sha256 == 0000000000000000000000000000000000000000000000000000000000000000, "
                + "got 2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824")
        #expect(run.errorMessage(of: "e") == "expected bytes count > 5, but the body has 5 bytes")
    }

    @Test("check refuses a SHA-256 that is not 64 lower-case hex digits, and bytes without count")
    func malformedBodyAsserts() throws {
        let space = try Workspace()
        defer { space.remove() }
        let short = try run(#"a: http GET "{{base}}/hello" { expect sha256 == "abc" }"#, in: space)
        #expect(short.status != 0)
        #expect(short.stderr.contains("a SHA-256 is 64 lower-case hex digits, not 3 characters"), "\(short.stderr)")
        let bytes = try run(#"a: http GET "{{base}}/hello" { expect bytes == 5 }"#, in: space)
        #expect(bytes.stderr.contains("expected 'count' after 'expect bytes'"), "\(bytes.stderr)")
    }

    @Test("predicates: isUuid, isIsoDate, isIpv4, isIpv6, isNumber, isEmpty ..., and not; a failing one shows the value")
    func predicates() throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try run("""
        parallel keep-going {
          a: http POST "{{base}}/mirror" {
            json '{"id": "123e4567-e89b-12d3-a456-426614174000", "at": "2026-01-31T12:00:00Z", "v4": "10.0.0.1", "v6": "::1", "n": 3, "e": []}'
            expect json ".id" isUuid
            expect json ".at" isIsoDate
            expect json ".v4" isIpv4
            expect json ".v6" isIpv6
            expect json ".v4" not isIpv6
            expect json ".n" isNumber
            expect json ".e" isEmpty
            expect json ".e" isList
          }
          b: http POST "{{base}}/mirror" {
            json '{"id": "not-a-uuid"}'
            expect json ".id" isUuid
          }
          c: http POST "{{base}}/mirror" {
            json '{"n": 3}'
            expect json ".n" not isNumber
          }
        }
        """, in: space)
        #expect(run.statuses == ["a succeeded", "b failed", "c failed"], "\(run.stdout)")
        #expect(run.errorMessage(of: "b") == #"expected json .id isUuid, got "not-a-uuid""#)
        #expect(run.errorMessage(of: "c") == "expected json .n not isNumber, got 3")
    }

    @Test("check suggests a predicate for a misspelt one")
    func misspeltPredicate() throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try run(#"a: http GET "{{base}}/json" { expect json ".token" isUUid }"#, in: space)
        #expect(run.status != 0)
        #expect(run.stderr.contains("did you mean 'isUuid'"), "\(run.stderr)")
    }

    @Test("fmt keeps the new forms as written and graph shows them")
    func formattedAndShown() throws {
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
        let formatted = try Binary.run(["fmt", "-"], stdin: text, in: space.folder)
        #expect(formatted.stdout == text, "\(formatted.stdout)\(formatted.stderr)")
        try space.write("t.workflow", text)
        let graph = try Binary.run(["graph", "t.workflow"], in: space.folder)
        #expect(graph.stdout.contains(#"expect json "$..id" count == 2"#), "\(graph.stdout)")
        #expect(graph.stdout.contains("expect bytes count >= 5"), "\(graph.stdout)")
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
