import Foundation
import Testing

/// The HTTP language, end to end: predicates on every text, JSON
/// counts, types and contains, big integers, captures from headers,
/// cookies and the URL, query, basic-auth, multipart, any method,
/// interpolated header and form names; against the tests' server on
/// 127.0.0.1.
@Suite("End to end: HTTP language (Hurl-grade)")
struct HTTPLanguageTests {
    private func run(_ workflow: String, _ arguments: [String] = [], in space: Workspace) async throws -> WorkflowRun {
        let base = try await TestServers.plain()
        return try await space.run("workflow \"http\"\nvar base = \"\(base)\"\n" + workflow, arguments)
    }

    private func lines(_ run: WorkflowRun) -> [String] {
        run.logLines(prefix: "=")
    }

    @Test("whole-text equality and not: body ==, !=, not contains, not matches; stdout == reads as {{x.stdout}} does")
    func textPredicates() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await run(
            """
            parallel keep-going {
              a: http GET "{{base}}/hello" {
                expect body == "hello"
                expect body != "hello!"
                expect body not contains "error"
                expect body not matches '^HELLO'
              }
              b: http GET "{{base}}/hello" { expect body == "Hello World!" }
              c: http GET "{{base}}/hello" { expect body not contains "ell" }
              d: sh "echo ready" {
                expect stdout == "ready"
                expect stderr == ""
                expect stdout not matches '^FAIL'
              }
            }
            """, in: space)
        #expect(run.statuses == ["a succeeded", "b failed", "c failed", "d succeeded"], "\(run.stdout)")
        #expect(run.errorMessage(of: "b").hasPrefix("expected body to be \"Hello World!\"; body: \"hello\""))
        #expect(run.errorMessage(of: "c").hasPrefix("expected body not to contain \"ell\""))
    }

    @Test("headers: count, not exists, == on one of several values")
    func headerPredicates() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await run(
            """
            parallel keep-going {
              a: http GET "{{base}}/duplicate-headers" {
                expect header "X-Dup" count == 2
                expect header "X-Dup" == "two"
                expect header "X-Dup" != "three"
                expect header "X-Debug" not exists
                expect header "X-Debug" count == 0
              }
              b: http GET "{{base}}/duplicate-headers" { expect header "X-Dup" count == 1 }
              c: http GET "{{base}}/duplicate-headers" { expect header "X-Dup" not exists }
            }
            """, in: space)
        #expect(run.statuses == ["a succeeded", "b failed", "c failed"], "\(run.stdout)")
        #expect(run.errorMessage(of: "b") == "expected header X-Dup count == 1, but it came 2 times")
        #expect(run.errorMessage(of: "c").hasPrefix("expected header X-Dup not to exist, but it came 2 times"))
    }

    @Test("a header that came several times gives every value, in order, joined with ', '")
    func repeatedHeaderValues() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await run(
            """
            f: http GET "{{base}}/fruit" {
              capture fruit = header "x-fruit"
              capture second = header "X-Fruit" matches '^B(.*)$'
            }
            log "=field {{f.header.X-Fruit}}"
            log "=capture {{f.fruit}}"
            log "=match {{f.second}}"
            """, in: space)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(
            run.logLines(prefix: "=") == [
                "=field Apple, Banana, Cherry, Date", "=capture Apple, Banana, Cherry, Date",
                "=match anana",
            ])
    }

    @Test("JSON: count, contains, matches, is TYPE, not exists, and integers of any size compared exactly")
    func jsonPredicates() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await run(
            """
            parallel keep-going {
              a: http GET "{{base}}/json" {
                expect json ".items" count == 2
                expect json "." count > 5
                expect json ".token" contains "c12"
                expect json ".items[0].name" matches '^[a-z]+$'
                expect json ".count" is integer
                expect json ".ratio" is number
                expect json ".ratio" is not integer
                expect json ".missing" is null
                expect json ".items" is array
                expect json ".toto" not exists
                expect json ".big" == 12345678901234567890
              }
              b: http GET "{{base}}/big-numbers" {
                expect json ".big" == 1000000000000000000000
                expect json ".next" > 1000000000000000000000
                expect json ".big" != 1000000000000000000001
                expect json ".tags" contains "test"
                expect json ".tags" contains "3"
                expect json ".tags" not contains "slow"
              }
              c: http GET "{{base}}/big-numbers" { expect json ".big" == 1000000000000000000001 }
              d: http GET "{{base}}/json" { expect json ".items" count == 3 }
              e: http GET "{{base}}/json" { expect json ".token" is integer }
              f: http GET "{{base}}/json" { expect json ".token" not exists }
            }
            """, in: space)
        #expect(run.statuses == ["a succeeded", "b succeeded", "c failed", "d failed", "e failed", "f failed"], "\(run.stdout)")
        #expect(run.errorMessage(of: "c") == "expected json .big == 1000000000000000000001, got 1000000000000000000000")
        #expect(run.errorMessage(of: "d").hasPrefix("expected json .items count == 3, but it has 2"))
        #expect(run.errorMessage(of: "e") == "expected json .token to be an integer, but it is a string: \"abc123\"")
        #expect(run.errorMessage(of: "f") == "expected json .token not to exist, but it is there: \"abc123\"")
    }

    @Test("captures from header NAME matches 'RE', cookie NAME and url")
    func captures() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await run(
            """
            login: http GET "{{base}}/cookies/set?session=s3cr3t" {
              capture session = cookie "session"
              capture type = header "Content-Type" matches '^text/([a-z]+)'
            }
            moved: http GET "{{base}}/redirect-to?location=/hello" { capture final = url }
            log "={{login.session}} {{login.type}}"
            log "={{moved.final}}"
            """, in: space)
        #expect(run.status == 0, "\(run.stdout)")
        let base = try await TestServers.plain()
        #expect(lines(run) == ["=s3cr3t plain", "=\(base)/hello"])
    }

    @Test("query NAME VALUE: appended to the URL, percent-encoded once; basic-auth; interpolated header and form names")
    func requestAttributes() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await run(
            """
            var field = "colour"
            var header = "X-Trace"
            q: http GET "{{base}}/echo?fixed=1" {
              query search "a b&c=d/é"
              query "{{field}}" "red"
            }
            auth: http GET "{{base}}/echo" { basic-auth "alice" "pa:ss" }
            named: http POST "{{base}}/echo" {
              header "{{header}}" "t-1"
              form "{{field}}" "blue"
            }
            log "={{q.json.path}}"
            log "={{auth.json.headers.authorization}}"
            log "={{named.json.headers.x-trace}} {{named.json.body}}"
            """, in: space)
        #expect(run.status == 0, "\(run.stdout)")
        // base64("alice:pa:ss") = YWxpY2U6cGE6c3M=
        #expect(
            lines(run) == [
                "=/echo?fixed=1&search=a%20b%26c%3Dd%2F%C3%A9&colour=red",
                "=Basic YWxpY2U6cGE6c3M=",
                "=t-1 colour=blue",
            ])
    }

    @Test("basic-auth credentials never follow a redirect to another origin")
    func basicAuthStaysWithItsOrigin() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let base = try await TestServers.plain()
        let port = try #require(URL(string: base)?.port)
        let run = try await run(
            """
            other: http GET "{{base}}/redirect-to?location=http://localhost:\(port)/echo" { basic-auth "alice" "secret" }
            log "=other {{other.json.headers}}"
            """, in: space)
        #expect(run.status == 0, "\(run.stdout)")
        let other = try #require(lines(run).first)
        #expect(other.contains("\"host\":\"localhost:\(port)\""), "\(other)")
        #expect(!other.contains("authorization"), "\(other)")
    }

    @Test("multipart: text parts and a file part with its name and type, as a server parses them")
    func multipart() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("report.csv", "a,b;1,2")
        try space.write("logo.bin", "\u{01}\u{02}binary")
        let run = try await run(
            """
            up: http POST "{{base}}/multipart" {
              multipart title "Quarterly \\"report\\""
              multipart data file "report.csv"
              multipart logo file "logo.bin" type "image/x-test"
              expect json ".parts" count == 3
            }
            log "={{up.json.parts[0].name}}|{{up.json.parts[0].content}}"
            log "={{up.json.parts[1].name}}|{{up.json.parts[1].filename}}|{{up.json.parts[1].type}}|{{up.json.parts[1].content}}"
            log "={{up.json.parts[2].filename}}|{{up.json.parts[2].type}}"
            missing: http POST "{{base}}/multipart" { multipart data file "absent.csv" }
            catch { log "={{error.kind}}" }
            """, in: space)
        #expect(
            lines(run) == [
                "=title|Quarterly \"report\"",
                "=data|report.csv|text/csv|a,b;1,2",
                "=logo.bin|image/x-test",
                "=file",
            ], "\(run.stdout)\(run.stderr)")
    }

    @Test("any upper-case method is sent as written; one a letter away from a standard method gets a warning")
    func methods() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await run(
            """
            purge: http PURGE "{{base}}/echo"
            find: http PROPFIND "{{base}}/echo"
            typo: http GTE "{{base}}/echo" { expect status 501 }
            log "={{purge.json.method}} {{find.json.method}}"
            """, in: space)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(lines(run) == ["=PURGE PROPFIND"])
        #expect(run.stderr.contains("warning: 'GTE' is not a standard HTTP method; did you mean 'GET'?"))
    }

    @Test("check explains the new forms' mistakes at file:line:col, exit 2")
    func checkErrors() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let cases: [(String, String)] = [
            ("http GET \"http://u\" { expect json \".a\" is integr }", "unknown JSON type 'integr'; did you mean 'integer'?"),
            (
                "http GET \"http://u\" { expect body not == \"x\" }",
                "expected 'contains', 'startsWith', 'endsWith' or 'matches' after 'not', found '=='; write '!=' for 'not =='"
            ),
            ("http GET \"http://u\" {\n form a \"1\"\n multipart b \"2\"\n}", "a request has one body: 'body', 'json', 'form' or 'multipart'"),
            ("http GET \"http://u\" { header \"X Y\" \"1\" }", "'X Y' cannot be a header name"),
            ("http get \"u\"", "'get' is not an HTTP method"),
            ("http GET \"http://u\" { expect header \"A\" count = 2 }", "'=' assigns; compare with '=='"),
            ("http GET \"http://u\" { expect json \".a\" cont \"x\" }", "did you mean 'count'?"),
            ("http GET \"http://u\" { expect body count == 2 }", "'count' does not apply to 'expect body': it is text"),
            ("sh \"x\" { expect stdout exists }", "'exists' does not apply to 'expect stdout': it is text"),
        ]
        for (source, message) in cases {
            try space.write("bad.workflow", source + "\n")
            let outcome = try await Binary.run(["check", "bad.workflow"], in: space.folder)
            #expect(outcome.status == 2, "\(source)")
            #expect(outcome.stderr.contains("bad.workflow:"), "\(source): \(outcome.stderr)")
            #expect(outcome.stderr.contains(message), "\(source): \(outcome.stderr)")
        }
    }

    @Test("graph shows every new attribute and predicate as written; JSON output has query, basicAuth and multipart")
    func graphShowsNewForms() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let lines = [
            "query \"q\" \"a b\"", "header \"{{h}}\" \"1\"", "basic-auth \"u\" \"{{pw}}\"", "multipart \"title\" \"t\"",
            "multipart \"data\" file \"r.csv\" type \"text/csv\"", "expect body == \"ok\"", "expect body not contains \"err\"",
            "expect header \"Set-Cookie\" count == 2", "expect header \"X-Debug\" not exists", "expect json \".errors\" count == 0",
            "expect json \".id\" is integer", "expect json \".tags\" not contains \"x\"",
            "expect json \".big\" == 1000000000000000000000", "capture token = header \"Location\" matches '/([0-9]+)'",
            "capture session = cookie \"sid\"", "capture final = url",
        ]
        try space.write(
            "g.workflow",
            "var h = \"X-Trace\"\nsecret pw = \"hunter2\"\nup: http PURGE \"http://127.0.0.1:1/x\" {\n"
                + lines.map { "  " + $0 }.joined(separator: "\n") + "\n}\n")
        let tree = try await Binary.run(["graph", "g.workflow"], in: space.folder)
        #expect(tree.status == 0, "\(tree.stderr)")
        #expect(tree.stdout.contains("up: http PURGE \"http://127.0.0.1:1/x\""))
        for line in lines {
            #expect(tree.stdout.contains(line), "tree: \(line)")
        }
        let dry = try await Binary.run(["--dry-run", "g.workflow"], in: space.folder)
        #expect(!dry.stdout.contains("hunter2"), "a secret password is masked in the dry run")
        let json = try await Binary.run(["graph", "--format", "json", "g.workflow"], in: space.folder)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let text = String(describing: document)
        for key in ["query", "basicAuth", "multipart", "PURGE"] {
            #expect(text.contains(key), "json: \(key)")
        }
    }

    @Test("a JSON path names any key (.args.ü); contains takes a number, true, false or null as written")
    func jsonKeysAndContainedValues() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await run(
            """
            a: http POST "{{base}}/mirror" {
              json '{"args": {"ü": "yes", "名前": 7}, "arr": [1, 2, true, null]}'
              expect json ".args.ü" == "yes"
              expect json ".args.名前" == 7
              expect json ".arr" contains 2
              expect json ".arr" contains true
              expect json ".arr" contains null
              expect json ".arr" not contains 5
            }
            log "=ü {{a.json.args.ü}}"
            b: http POST "{{base}}/mirror" {
              json '{"arr": [1, 2]}'
              expect json ".arr" contains 3
            }
            """, in: space)
        #expect(run.step("a")?["status"] as? String == "succeeded", "\(run.stdout)\(run.stderr)")
        #expect(run.logLines(prefix: "=ü ") == ["=ü yes"])
        #expect(run.errorMessage(of: "b") == "expected json .arr to contain \"3\", got [1,2]")
    }

    @Test("a URL written whole is checked before running: scheme, host and port said where they are wrong")
    func literalURLsChecked() async throws {
        try await Workspace.expectCheckRefuses(
            """
            a: http GET "htp:/x"
            b: http GET "127.0.0.1:8080/raw"
            c: http GET "http://127.0.0.1:99999/x"
            d: http GET "http:///path"
            e: http GET "http://127.0.0.1:80a/x"
            f: http GET "http:/127.0.0.1/x"
            g: http GET "http://127.0.0.1:{{port}}/fine-at-check"
            h: http GET " http://127.0.0.1/x"
            """,
            with: [
                "bad.workflow:1:13: error: 'htp:/x' is not an http:// or https:// URL (its scheme is 'htp'; did you mean 'http'?)",
                "bad.workflow:2:13: error: '127.0.0.1:8080/raw' is not an http:// or https:// URL (it has no scheme; write it as 'http://127.0.0.1:8080/raw')",
                "bad.workflow:3:13: error: 'http://127.0.0.1:99999/x': its port 99999 is out of range (1 to 65535)",
                "bad.workflow:4:13: error: 'http:///path' has no host",
                "bad.workflow:5:13: error: 'http://127.0.0.1:80a/x': its port '80a' is not a number",
                "bad.workflow:6:13: error: 'http:/127.0.0.1/x': write 'http://' with two slashes before the host",
                "bad.workflow:8:13: error: ' http://127.0.0.1/x' has white space around it; write the URL without it ('http://127.0.0.1/x')",
            ])
    }

    @Test("a URL made at run time with a port out of range fails its step saying so")
    func portOutOfRangeAtRunTime() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(
            """
            var port = "99999"
            a: http GET "http://127.0.0.1:{{port}}/x"
            """)
        #expect(run.status == 1)
        #expect(run.message(of: "a").contains("its port 99999 is out of range (1 to 65535)"), "\(run.stdout)")
    }

    @Test("a URL from a list's line with spaces around it fails its step saying so, not 'it has no scheme'")
    func spacesAroundAURL() async throws {
        let space = try Workspace()
        defer { space.remove() }
        // A hand-edited list: an indented line with a trailing space.
        try space.write("urls.txt", "  http://127.0.0.1:9/x \r\n")
        let run = try await space.run(
            """
            foreach url in lines("urls.txt") {
              a: http GET "{{url}}"
            }
            """)
        #expect(run.status == 1)
        #expect(
            run.message(of: "a[0]").contains(
                "'  http://127.0.0.1:9/x ' has white space around it; write the URL without it ('http://127.0.0.1:9/x')"),
            "\(run.stdout)")
    }
}
