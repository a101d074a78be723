import Foundation
import LSPTestSupport
import Testing

/// Hurl's filters end to end: in templates, captures and expectations,
/// against the tests' server on 127.0.0.1; `check` refusing a filter that
/// meets the wrong kind of value where the kind is known, an unknown name
/// (with a did-you-mean) and a wrong argument.
@Suite("End to end: Hurl's filters")
struct HurlFiltersTests {
    private func run(_ workflow: String, in space: Workspace) async throws -> WorkflowRun {
        let base = try await TestServers.plain()
        return try await space.run("workflow \"filters\"\nvar base = \"\(base)\"\n" + workflow)
    }

    @Test("every filter in templates: count, first, last, nth, split, replace, lower, upper, toInt, toFloat, base64, url, sha256, jsonpath")
    func inTemplates() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await run(
            #"""
            a: http GET "{{base}}/json"
            log "=count {{a.json.items | count}}"
            log "=first {{a.json.items | first | jsonpath ".id"}}"
            log "=last {{a.json.items | last | jsonpath "$.name"}}"
            log "=nth {{a.json.items | nth 1 | jsonpath "$.id"}} {{a.json.items | nth -1 | jsonpath "$.id"}}"
            log "=split {{a.json.token | split "c" | first}} {{a.json.token | split "c" | count}}"
            log "=replace {{a.json.token | replace "123" "-xyz"}}"
            log "=case {{a.json.token | upper}} {{a.json.token | upper | lower}}"
            log "=numbers {{a.json.count | toInt}} {{a.json.ratio | toFloat}} {{a.json.token | replace "abc" "" | toInt}}"
            log "=base64 {{a.json.token | base64Encode}} {{a.json.token | base64Encode | base64Decode}}"
            log "=url {{a.json["odd key"] | urlEncode}} {{a.json["odd key"] | urlEncode | urlDecode}}"
            log "=sha256 {{a.json.token | sha256}}"
            log "=jsonpath {{a.body | jsonpath "$.items[*].id"}} {{a.body | jsonpath "$..name" | last}}"
            log "=old {{a.json.token | upper | shell}}"
            """#, in: space)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(
            run.logLines(prefix: "=") == [
                "=count 2",
                "=first 42",
                "=last second",
                "=nth 7 7",
                "=split ab 2",
                "=replace abc-xyz",
                "=case ABC123 abc123",
                "=numbers 3 0.5 123",
                "=base64 YWJjMTIz abc123",
                "=url odd%20value odd value",
                "=sha256 6ca13d52ca70c883e0f0bb101e425a89e8624de51db2d2392593af6a84118090",
                "=jsonpath [42,7] second",
                "=old 'ABC123'",
            ], "\(run.stdout)")
    }

    @Test("captures take filters; a list captured keeps being a list for the filters of later templates")
    func inCaptures() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await run(
            """
            a: http GET "{{base}}/json" {
              capture n = json "$.items[*]" | count
              capture names = json "$.items[*].name"
              capture second = json "$.items[*].name" | nth 1 | upper
              capture kind = header "Content-Type" | split "/" | first
              capture digits = body matches '"token": "([a-z]+[0-9]+)"' | replace "abc" "" | toInt
            }
            log "={{a.n}} {{a.names}} {{a.names | count}} {{a.names | last}} {{a.second}} {{a.kind}} {{a.digits}}"
            """, in: space)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.logLines(prefix: "=") == [#"=2 ["first","second"] 2 second SECOND application 123"#], "\(run.stdout)")
    }

    @Test("expectations take filters, each failing with what was expected and what came")
    func inExpectations() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await run(
            #"""
            parallel keep-going {
              a: http GET "{{base}}/json" {
                expect json "$.items[*].id" | count == 2
                expect json "$.items" | nth 0 | jsonpath "$.name" == "first"
                expect body | jsonpath "$.count" | toInt == 3
                expect header "Content-Type" | split "/" | first == "application"
                expect json ".token" | base64Encode == "YWJjMTIz"
                expect json ".token" | upper startsWith "ABC"
                expect json ".token" | upper not endsWith "abc"
                expect json ".ratio" | toFloat < 1
                expect json ".token" | split "c" is array
              }
              b: http GET "{{base}}/json" { expect json ".token" | toInt == 3 }
              c: http GET "{{base}}/json" { expect json "$.items[*].id" | count == 3 }
              d: http GET "{{base}}/json" { capture x = json ".token" | nth 0 }
              e: http GET "{{base}}/json" { expect header "X-None" | toInt == 1 }
              f: http GET "{{base}}/json" { expect json ".token" | upper startsWith "abc" }
            }
            """#, in: space)
        #expect(run.statuses == ["a succeeded", "b failed", "c failed", "d failed", "e failed", "f failed"], "\(run.stdout)\(run.stderr)")
        #expect(run.errorMessage(of: "b") == #"expected json ".token" | toInt == 3, but toInt: the text "abc123" is not an integer"#)
        #expect(run.errorMessage(of: "c") == #"expected json "$.items[*].id" | count == 3, got 2"#)
        #expect(run.errorMessage(of: "d") == #"capture x = json ".token" | nth 0: nth 0: it applies to a list, not the text "abc123""#)
        #expect(run.errorMessage(of: "e") == #"expected header "X-None" | toInt == 1, but the response has no header X-None"#)
        #expect(run.errorMessage(of: "f") == #"expected json ".token" | upper to start with "abc", got "ABC123""#)
        #expect(run.error(of: "b")?["kind"] as? String == "expect")
    }

    @Test("a filter that cannot apply at run time fails the step that uses it, kind reference, naming the expression")
    func failingTemplate() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await run(
            """
            a: http GET "{{base}}/json"
            b: log "{{a.json.token | toInt}}"
            """, in: space)
        #expect(run.status != 0)
        #expect(run.error(of: "b")?["kind"] as? String == "reference", "\(run.stdout)")
        #expect(
            run.errorMessage(of: "b").hasSuffix(#"{{a.json.token | toInt}}: toInt: the text "abc123" is not an integer"#),
            "\(run.errorMessage(of: "b"))")
    }

    @Test("check refuses a filter on the wrong kind of value where it is known, unknown filters (did you mean), and wrong arguments")
    func checkRefuses() async throws {
        try await Workspace.expectCheckRefuses(
            #"""
            workflow "bad"
            a: http GET "http://127.0.0.1:1/x" {
              capture h = header "X-A" | count
              expect body | split "," | upper == "A"
              expect json ".a" | cuont == 2
            }
            log "{{a.status | first}}"
            log "{{a.body | split "," | toInt}}"
            log "{{a.body | nth "x"}}"
            log "{{a.body | uper}}"
            log "{{a.body | split ""}}"
            log "{{a.body | jsonpath "items"}}"
            log "{{a.body | trim 3}}"
            log "{{a.body | replace "a"}}"
            log "{{a.body | split 2}}"
            """#,
            with: [
                "bad.workflow:3:30: error: 'count' applies to a list (or an object), and the captured header is a text",
                "bad.workflow:4:29: error: 'upper' applies to a text, and 'split' gives a list",
                "bad.workflow:5:22: error: unknown filter 'cuont'; did you mean 'count'?",
                "bad.workflow:7:19: error: 'first' applies to a list, and 'a.status' is a number",
                "bad.workflow:8:29: error: 'toInt' applies to a text or a number, and 'split' gives a list",
                "bad.workflow:9:21: error: 'nth' takes a number, not the string \"x\" (nth N)",
                "bad.workflow:10:17: error: unknown filter 'uper'; did you mean 'upper'?",
                "bad.workflow:11:23: error: the separator of 'split' is empty (split \"SEP\")",
                "bad.workflow:12:26: error: invalid JSON path in 'jsonpath': a JSON path starts with '.', '[' or '$'",
                "bad.workflow:13:22: error: 'trim' takes no argument (trim)",
                "bad.workflow:14:25: error: 'replace' needs 2 arguments: replace \"A\" \"B\"",
                "bad.workflow:15:23: error: 'split' takes a string, not the number 2 (split \"SEP\")",
            ])
    }

    @Test("fmt keeps filters as written; graph shows them")
    func formatted() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let text = #"""
            workflow "t"
            a: http GET "http://127.0.0.1:1/x" {
              expect json "$.items[*].id" | count == 2
              expect header "X-Total" | toInt > 10
              expect body | jsonpath "$.id" | replace "a" "b" startsWith "x"
              capture n = json "$.items[*]" | nth 0 | jsonpath "$.id"
            }
            log "{{a.n | split "," | last}}"

            """#
        let formatted = try await Binary.run(["fmt", "-"], stdin: text.replacingOccurrences(of: "| count", with: "|count"), in: space.folder)
        #expect(formatted.stdout == text, "\(formatted.stdout)\(formatted.stderr)")
        try space.write("t.workflow", text)
        let graph = try await Binary.run(["graph", "t.workflow"], in: space.folder)
        #expect(graph.stdout.contains(#"expect json "$.items[*].id" | count == 2"#), "\(graph.stdout)")
        #expect(graph.stdout.contains(#"capture n = json "$.items[*]" | nth 0 | jsonpath "$.id""#), "\(graph.stdout)")
    }

    @Test("the language server offers the filters after '|' in a capture, an expectation and {{ }}, and tells what one does")
    func languageServer() async throws {
        let client = try LSPClient()
        _ = try client.start()
        try client.open(
            "a.workflow",
            """
            workflow "t"
            a: http GET "http://127.0.0.1:1/x" {
              capture n = json "$.items[*]" | co
              expect body | jsonpath "$.id" | 
            }
            log "{{a.n | toInt}}"

            """)
        func labels(_ line: Int, _ character: Int) throws -> [String] {
            let response = try client.request(
                "textDocument/completion",
                ["textDocument": ["uri": client.uri("a.workflow")], "position": lspPosition(line, character)])
            let items = (response["result"] as? [String: Any])?["items"] as? [[String: Any]] ?? []
            return items.compactMap { $0["label"] as? String }
        }
        let inCapture = try labels(2, 36)
        #expect(inCapture.contains("count") && inCapture.contains("nth") && inCapture.contains("jsonpath"), "\(inCapture)")
        let inExpect = try labels(3, 34)
        #expect(inExpect.contains("toInt") && inExpect.contains("base64Decode"), "\(inExpect)")
        let inTemplate = try labels(5, 12)
        #expect(inTemplate.contains("toInt") && inTemplate.contains("urlDecode"), "\(inTemplate)")
        let hover = try client.request(
            "textDocument/hover",
            ["textDocument": ["uri": client.uri("a.workflow")], "position": lspPosition(5, 13)])
        let text = ((hover["result"] as? [String: Any])?["contents"] as? [String: Any])?["value"] as? String ?? ""
        #expect(text.hasPrefix("**toInt**: a number from a text holding an integer"), "\(text)")
        _ = try client.stop()
    }
}
