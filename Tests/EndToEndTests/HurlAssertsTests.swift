import Foundation
import Testing

/// Hurl's asserts end to end: duration, version, url (after
/// redirects), md5, cookie attributes, a list compared whole, predicates on
/// a body or a header, `{{newUuid}}` and `{{newDate}}`, against the tests'
/// server on 127.0.0.1.
@Suite("End to end: Hurl's asserts")
struct HurlAssertsTests {
    private func run(_ workflow: String, in space: Workspace) async throws -> WorkflowRun {
        let base = try await TestServers.plain()
        return try await space.run("workflow \"asserts\"\nvar base = \"\(base)\"\n" + workflow)
    }

    @Test("duration, version, url, md5: passing, and failing with what was expected and what came")
    func responseAsserts() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let base = try await TestServers.plain()
        let run = try await run(
            """
            parallel keep-going {
              a: http GET "{{base}}/redirect/2" {
                expect duration < 10s
                expect version == "1.1"
                expect url == "{{base}}/redirect/0"
                expect url endsWith "/redirect/0"
                expect url | split "/" | last == "0"
                expect md5 == "241441e184ca822d7768688e9883cc26"
                expect md5 != "00000000000000000000000000000000"
              }
              b: http GET "{{base}}/slow?ms=300" { expect duration < 100ms }
              c: http GET "{{base}}/hello" { expect version == "2" }
              d: http GET "{{base}}/redirect/1" { expect url == "{{base}}/redirect/1" }
              e: http GET "{{base}}/hello" { expect md5 == "00000000000000000000000000000000" }
              f: sh "sleep 0.3" { expect duration <= 50ms }
            }
            """, in: space)
        #expect(run.statuses == ["a succeeded", "b failed", "c failed", "d failed", "e failed", "f failed"], "\(run.stdout)\(run.stderr)")
        #expect(run.errorMessage(of: "b").hasPrefix("expected duration < 100ms, but it took "), "\(run.errorMessage(of: "b"))")
        #expect(run.error(of: "b")?["kind"] as? String == "expect")
        #expect(run.errorMessage(of: "c") == #"expected version == "2", got "1.1""#)
        #expect(run.errorMessage(of: "d") == "expected url == \"\(base)/redirect/1\", got \"\(base)/redirect/0\"")
        #expect(run.errorMessage(of: "e") == "expected md5 == 00000000000000000000000000000000, got 5d41402abc4b2a76b9719d911017c592")
        #expect(run.errorMessage(of: "f").hasPrefix("expected duration <= 50ms, but it took "), "\(run.errorMessage(of: "f"))")
    }

    @Test("cookie values and attributes from the response's Set-Cookie")
    func cookieAttributes() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await run(
            """
            parallel keep-going {
              a: http GET "{{base}}/cookie-attributes" {
                expect cookie "sid" == "abc123"
                expect cookie "sid" attribute "Max-Age" == "3600"
                expect cookie "sid" attribute "Max-Age" | toInt > 60
                expect cookie "sid" attribute "Secure" exists
                expect cookie "sid" attribute "httponly" exists
                expect cookie "sid" attribute "SameSite" == "Lax"
                expect cookie "sid" attribute "Domain" not exists
                expect cookie "theme" attribute "Path" == "/"
                expect cookie "nope" not exists
              }
              b: http GET "{{base}}/cookie-attributes" { expect cookie "theme" attribute "Secure" exists }
              c: http GET "{{base}}/cookie-attributes" { expect cookie "sid" attribute "Max-Age" == "60" }
              d: http GET "{{base}}/cookie-attributes" { expect cookie "lang" == "en" }
            }
            """, in: space)
        #expect(run.statuses == ["a succeeded", "b failed", "c failed", "d failed"], "\(run.stdout)\(run.stderr)")
        #expect(
            run.errorMessage(of: "b")
                == #"expected cookie "theme" attribute "Secure" to exist, but cookie theme has no attribute Secure: "theme=dark; Path=/""#)
        #expect(run.errorMessage(of: "c") == #"expected cookie "sid" attribute "Max-Age" == "60", got "3600""#)
        #expect(run.errorMessage(of: "d") == #"expected cookie "lang" == "en", but the response set no cookie lang (it set sid, theme)"#)
    }

    @Test("a list compared whole; predicates on a body and a header")
    func listsAndPredicates() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await run(
            """
            parallel keep-going {
              a: http GET "{{base}}/json" {
                expect json "$.items[*].id" == [42, 7]
                expect json "$.items[*].name" == ["first", "second"]
                expect json "$.items[*].id" != [7, 42]
                expect json ".items" | count == 2
              }
              b: http GET "{{base}}/json" { expect json "$.items[*].id" == [42] }
              c: http POST "{{base}}/mirror" {
                body "123e4567-e89b-12d3-a456-426614174000"
                expect body isUuid
                expect body not isIpv4
              }
              d: http GET "{{base}}/hello" { expect body isUuid }
              e: http GET "{{base}}/redirect-to?status=200&location=10.1.2.3" {
                expect header "Location" isIpv4
              }
            }
            """, in: space)
        #expect(run.statuses == ["a succeeded", "b failed", "c succeeded", "d failed", "e succeeded"], "\(run.stdout)\(run.stderr)")
        #expect(run.errorMessage(of: "b") == "expected json $.items[*].id == [42], got [42,7]")
        #expect(run.errorMessage(of: "d") == #"expected body isUuid, got "hello""#)
    }

    @Test("{{newUuid}} is fresh at each use and {{newDate}} is now, RFC 3339 in UTC")
    func functions() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await run(
            """
            log "={{newUuid}} {{newUuid}}"
            log "={{newDate}}"
            a: http POST "{{base}}/mirror" {
              json "{\\"id\\": \\"{{newUuid}}\\", \\"at\\": \\"{{newDate}}\\"}"
              expect json ".id" isUuid
              expect json ".at" isIsoDate
            }
            """, in: space)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let lines = run.logLines(prefix: "=")
        #expect(lines.count == 2)
        let uuids = lines.first?.dropFirst().split(separator: " ").map(String.init) ?? []
        let shape = #/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/#
        #expect(uuids.count == 2 && uuids[0] != uuids[1], "\(uuids)")
        #expect(uuids.allSatisfy { $0.wholeMatch(of: shape) != nil }, "\(uuids)")
        let date = String(lines.last?.dropFirst() ?? "")
        #expect(date.wholeMatch(of: #/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/#) != nil, "\(date)")
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let parsed = formatter.date(from: date)
        #expect(parsed.map { abs($0.timeIntervalSinceNow) < 60 } == true, "\(date)")
    }

    @Test(
        "{{newUuid}} and {{newDate}} as the server received them, in a header and a query: shapes checked there; a predicate of the other shape fails showing the value"
    )
    func functionsAsSent() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await run(
            #"""
            a: http GET "{{base}}/echo?at={{newDate}}" {
              header "X-Request-Id" "{{newUuid}}"
              expect json ".headers[\"x-request-id\"]" isUuid
              expect json ".headers[\"x-request-id\"]" matches '^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'
              expect json ".path" | split "=" | last isIsoDate
              expect json ".path" | split "=" | last matches '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z$'
              capture id = json ".headers[\"x-request-id\"]"
            }
            parallel keep-going {
              b: http GET "{{base}}/echo" {
                header "X-Request-Id" "{{newUuid}}"
                expect json ".headers[\"x-request-id\"]" isIsoDate
              }
              c: http GET "{{base}}/echo" {
                header "X-At" "{{newDate}}"
                expect json ".headers[\"x-at\"]" isUuid
              }
              d: http GET "{{base}}/echo" {
                header "X-Request-Id" "{{newUuid}}"
                expect json ".headers[\"x-request-id\"]" == "{{a.id}}"
              }
            }
            """#, in: space)
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.statuses == ["a succeeded", "b failed", "c failed", "d failed"], "\(run.stdout)\(run.stderr)")
        let uuid = #/[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/#
        let date = #/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z/#
        /// The text after `prefix` in a message, without its closing quote.
        func came(_ message: String, after prefix: String) -> String {
            guard message.hasPrefix(prefix), message.hasSuffix("\"") else { return "" }
            return String(message.dropFirst(prefix.count).dropLast())
        }
        let b = run.errorMessage(of: "b")
        let c = run.errorMessage(of: "c")
        let d = run.errorMessage(of: "d")
        #expect(came(b, after: #"expected json .headers.x-request-id isIsoDate, got ""#).wholeMatch(of: uuid) != nil, "\(b)")
        #expect(came(c, after: #"expected json .headers.x-at isUuid, got ""#).wholeMatch(of: date) != nil, "\(c)")
        // Fresh at each use: the second request's id is not the first's.
        let ids = came(d, after: #"expected json .headers.x-request-id == ""#).components(separatedBy: #"", got ""#)
        #expect(ids.count == 2 && ids.allSatisfy { $0.wholeMatch(of: uuid) != nil } && ids[0] != ids[1], "\(d)")
    }

    @Test("check refuses a misspelt subject, an MD5 that is not 32 hex digits, a version compared with a number, a var named newUuid")
    func checkRefuses() async throws {
        try await Workspace.expectCheckRefuses(
            """
            workflow "bad"
            var newDate = "x"
            a: http GET "http://127.0.0.1:1/x" {
              expect md5 == "abc"
              expect version == 2
              expect duraton < 1s
              expect duration < 100
              expect json ".a" == [1, 2
            }
            b: sh "true" { expect url == "x" }
            """,
            with: [
                "bad.workflow:2:5: error: 'newDate' is a function of templates ({{newDate}}); choose another name",
                "bad.workflow:4:17: error: an MD5 is 32 lower-case hex digits, not 3 characters",
                "bad.workflow:5:10: error: the HTTP version is text: write expect version == \"2\" (\"1.1\" or \"2\")",
                "bad.workflow:6:10: error: unknown expectation 'duraton'; did you mean 'duration'?",
                "bad.workflow:7:21: error: missing unit in duration '100'",
                "bad.workflow:9:1: error: expected ',' or ']' in the list, found '}'",
                "bad.workflow:10:23: error: 'expect url' does not apply to sh steps",
            ])
    }

    @Test("fmt keeps the new asserts as written; graph shows them")
    func formatted() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let text = """
            workflow "t"
            a: http GET "http://127.0.0.1:1/x" {
              json "{\\"id\\": \\"{{newUuid}}\\"}"
              expect duration < 200ms
              expect version == "2"
              expect url == "http://127.0.0.1:1/y"
              expect md5 == "5d41402abc4b2a76b9719d911017c592"
              expect cookie "sid" attribute "Max-Age" == "3600"
              expect json "$.a[*]" == [1, "b", true, null]
              expect header "X-Id" not isUuid
            }

            """
        let formatted = try await Binary.run(["fmt", "-"], stdin: text, in: space.folder)
        #expect(formatted.stdout == text, "\(formatted.stdout)\(formatted.stderr)")
        try space.write("t.workflow", text)
        let graph = try await Binary.run(["graph", "t.workflow"], in: space.folder)
        for line in [
            "expect duration < 200ms", #"expect cookie "sid" attribute "Max-Age" == "3600""#, #"expect json "$.a[*]" == [1, "b", true, null]"#,
            #"expect header "X-Id" not isUuid"#, #"expect md5 == "5d41402abc4b2a76b9719d911017c592""#,
        ] {
            #expect(graph.stdout.contains(line), "\(line)\n\(graph.stdout)")
        }
    }
}
