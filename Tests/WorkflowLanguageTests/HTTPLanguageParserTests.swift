import JSON
import PromiseTestSupport
import Testing
import WorkflowTestSupport

@testable import PromiseEngine
@testable import WorkflowLanguage
@testable import WorkflowModel

/// The HTTP forms as the parser reads them, and their mistakes.
@Suite("Parser: HTTP language")
struct HTTPLanguageParserTests {
    private func request(_ block: String, method: String = "GET") throws -> HTTPRequest {
        let parsed = try workflow("var n = \"X-Trace\"\nr: http \(method) \"http://h/\" {\n\(block)\n}\n")
        guard case .step(.http(let request))? = parsed.body.nodes.first?.kind else {
            Issue.record("not an http step")
            return HTTPRequest(method: .GET, url: .literal(""))
        }
        return request
    }

    @Test(
        "every predicate reads back as written",
        arguments: [
            "body == \"Hello World!\"", "body != \"x\"", "body not contains \"error\"", "body not matches '^FAIL'",
            "body contains \"ok\"", "header \"Set-Cookie\" count == 2", "header \"X-Debug\" not exists",
            "header \"X-Debug\" exists", "header \"Vary\" == \"Accept\"", "header \"Vary\" not contains \"x\"",
            "json \".errors\" count >= 1", "json \".tags\" contains \"test\"", "json \".tags\" not contains \"x\"",
            "json \".id\" is integer", "json \".id\" is not string", "json \".toto\" not exists", "json \".name\" matches '^[a-z]+$'",
            "json \".name\" not matches '^A'", "json \".big\" == 1000000000000000000000", "json \".n\" != -12",
        ])
    func predicatesRoundTrip(_ text: String) throws {
        let parsed = try request("expect \(text)")
        #expect(parsed.expectations.map(ExpectationText.describe) == [text])
    }

    @Test("the models behind the predicates")
    func models() throws {
        let parsed = try request(
            """
            expect body == "a"
            expect header "H" count < 3
            expect json ".x" is not null
            expect json ".big" == 123456789012345678901234567890
            """)
        #expect(
            parsed.expectations == [
                .text(.body, TextPredicate(.equals(.literal("a")))),
                .header(name: "H", .count(.less, 3)),
                .json(JSONPath([.key("x")]), .isType(.null, negated: true)),
                .json(JSONPath([.key("big")]), .compare(.equal, .integer("123456789012345678901234567890"))),
            ])
    }

    @Test("captures from a header's match, a cookie and the URL")
    func captures() throws {
        let parsed = try request(
            """
            capture id = header "Location" matches '/([0-9]+)$'
            capture sid = cookie "session"
            capture final = url
            """)
        #expect(
            parsed.captures.map(ExpectationText.describe) == [
                "id = header \"Location\" matches '/([0-9]+)$'", "sid = cookie \"session\"", "final = url",
            ])
    }

    @Test("query, basic-auth, multipart, interpolated names")
    func requestAttributes() throws {
        let parsed = try request(
            """
            query q "a b"
            query "{{n}}" "v"
            header "{{n}}" "1"
            basic-auth "u" "p"
            multipart title "t"
            multipart data file "r.csv" type "text/csv"
            """, method: "POST")
        #expect(parsed.query.map(\.name.sourceText) == ["q", "{{n}}"])
        #expect(parsed.headers.first?.name.literalValue == nil, "an interpolated header name")
        #expect(parsed.basicAuth == BasicAuth(user: .literal("u"), password: .literal("p")))
        #expect(
            parsed.body
                == .multipart([
                    MultipartPart(name: .literal("title"), content: .text(.literal("t"))),
                    MultipartPart(name: .literal("data"), content: .file(path: .literal("r.csv"), type: .literal("text/csv"))),
                ]))
    }

    @Test("any method in capitals; one letter from a standard one warns")
    func methods() throws {
        #expect(try request("", method: "PURGE").method.rawValue == "PURGE")
        let result = compile("http PSOT \"http://h/\"\n")
        #expect(result.workflow != nil, "a warning, not an error")
        #expect(result.diagnostics.map(\.message) == ["'PSOT' is not a standard HTTP method; did you mean 'POST'?"])
    }

    @Test("mistakes, each with what to write instead")
    func mistakes() {
        #expect(messages("http GET \"http://u\" { expect json \".a\" is integr }") == ["unknown JSON type 'integr'; did you mean 'integer'?"])
        #expect(
            messages("http GET \"http://u\" { expect body not == \"x\" }") == [
                "expected 'contains', 'startsWith', 'endsWith' or 'matches' after 'not', found '=='; write '!=' for 'not =='"
            ])
        #expect(
            messages("http GET \"http://u\" {\n multipart a \"1\"\n json \"{}\"\n}") == [
                "a request has one body: 'body', 'json', 'form' or 'multipart'"
            ])
        #expect(messages("http GET \"http://u\" {\n basic-auth \"a\" \"b\"\n basic-auth \"c\" \"d\"\n}") == ["duplicate 'basic-auth'"])
        #expect(
            messages("http GET \"http://u\" { header \"a:b\" \"1\" }") == ["'a:b' cannot be a header name: letters, digits and !#$%&'*+-.^_`|~ only"])
        #expect(messages("http Get \"u\"") == ["'Get' is not an HTTP method: a method is written in capital letters (GET, POST, PURGE); write 'GET'"])
        #expect(messages("sh \"x\" { capture u = url }") == ["capturing from url does not apply to sh steps; it is for http steps"])
        #expect(messages("http GET \"http://u\" { capture c = cookie }").first?.contains("a cookie name") == true)
    }
}
