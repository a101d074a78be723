import Foundation
import Testing

/// Hurl's filters on their failing side, end to end: an expectation
/// after each filter failing with what was expected and the filtered value
/// that came, and each filter meeting, at run time, a value it cannot take
/// (kind `expect`, naming the filter and the value). HurlFiltersTests has
/// their passing side and what `check` refuses.
@Suite("End to end: Hurl's filters failing")
struct HurlFilterFailuresTests {
    /// A document the server's `/mirror` answers with: a text, a list, an
    /// object, and texts to decode.
    private static let document = #"""
        json '{"token": "abc123", "ratio": 0.5, "names": ["first", "second"], "ids": [42, 7], "o": {"a": 1}, "odd": "odd value", "b64": "aGVsbG8=", "bad64": "a$b", "pct": "a%20b", "inner": "{\"id\": 5}"}'
        """#

    /// Runs each expectation in a step of its own (`p0`, `p1` ...) of one
    /// `parallel keep-going`, against `/mirror` answering `document`.
    private func run(_ expectations: [String], in space: Workspace) async throws -> WorkflowRun {
        let base = try await TestServers.plain()
        var workflow = "workflow \"filters\"\nparallel keep-going {\n"
        for (index, expectation) in expectations.enumerated() {
            workflow += "  p\(index): http POST \"\(base)/mirror\" {\n    \(Self.document)\n    expect \(expectation)\n  }\n"
        }
        return try await space.run(workflow + "}\n")
    }

    private func expectFailures(_ cases: [(expectation: String, message: String)], sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await run(cases.map(\.expectation), in: space)
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)", sourceLocation: sourceLocation)
        for (index, check) in cases.enumerated() {
            let message = run.errorMessage(of: "p\(index)")
            #expect(message == check.message, "expect \(check.expectation)\ngot: \(message)", sourceLocation: sourceLocation)
            #expect(run.error(of: "p\(index)")?["kind"] as? String == "expect", "expect \(check.expectation)", sourceLocation: sourceLocation)
        }
    }

    @Test("an expectation after each filter fails with what was expected and the filtered value that came")
    func expectationAfterFilter() async throws {
        try await expectFailures([
            (#"json ".names" | first == "second""#, #"expected json ".names" | first == "second", got "first""#),
            (#"json ".ids" | last == 42"#, #"expected json ".ids" | last == 42, got 7"#),
            (#"json ".token" | split "c" | count == 3"#, #"expected json ".token" | split "c" | count == 3, got 2"#),
            (#"json ".token" | replace "123" "456" == "abc123""#, #"expected json ".token" | replace "123" "456" == "abc123", got "abc456""#),
            (#"header "Content-Type" | lower == "text/html""#, #"expected header "Content-Type" | lower == "text/html", got "application/json""#),
            (#"json ".ratio" | toFloat > 1"#, #"expected json ".ratio" | toFloat > 1, got 0.5"#),
            (#"json ".token" | base64Encode == "YWJj""#, #"expected json ".token" | base64Encode == "YWJj", got "YWJjMTIz""#),
            (#"json ".b64" | base64Decode == "bye""#, #"expected json ".b64" | base64Decode == "bye", got "hello""#),
            (#"json ".odd" | urlEncode == "odd+value""#, #"expected json ".odd" | urlEncode == "odd+value", got "odd%20value""#),
            (#"json ".pct" | urlDecode == "a%20b""#, #"expected json ".pct" | urlDecode == "a%20b", got "a b""#),
            (
                #"json ".token" | sha256 startsWith "0000""#,
                #"expected json ".token" | sha256 to start with "0000", got "6ca13d52ca70c883e0f0bb101e425a89e8624de51db2d2392593af6a84118090""#
            ),
            (#"json ".inner" | jsonpath "$.id" == 6"#, #"expected json ".inner" | jsonpath "$.id" == 6, got 5"#),
        ])
    }

    @Test("each filter meeting a value it cannot take fails the step, naming the filter and the value")
    func wrongValue() async throws {
        try await expectFailures([
            (#"json ".token" | first == "a""#, #"expected json ".token" | first == "a", but first: it applies to a list, not the text "abc123""#),
            (#"json ".o" | last == 1"#, #"expected json ".o" | last == 1, but last: it applies to a list, not the object {"a":1}"#),
            (
                #"json ".names" | split "," | count == 2"#,
                #"expected json ".names" | split "," | count == 2, but split ",": it applies to a text, not the list ["first","second"]"#
            ),
            (
                #"json ".o" | replace "a" "b" == "b""#,
                #"expected json ".o" | replace "a" "b" == "b", but replace "a" "b": it applies to a text, not the object {"a":1}"#
            ),
            (
                #"json ".names" | lower == "first""#,
                #"expected json ".names" | lower == "first", but lower: it applies to a text, not the list ["first","second"]"#
            ),
            (#"json ".token" | toFloat == 1"#, #"expected json ".token" | toFloat == 1, but toFloat: the text "abc123" is not a number"#),
            (
                #"json ".ids" | base64Encode == "x""#,
                #"expected json ".ids" | base64Encode == "x", but base64Encode: it applies to a text, not the list [42,7]"#
            ),
            (
                #"json ".bad64" | base64Decode == "x""#,
                #"expected json ".bad64" | base64Decode == "x", but base64Decode: the text "a$b" is not base64"#
            ),
            (
                #"json ".o" | urlEncode == "x""#,
                #"expected json ".o" | urlEncode == "x", but urlEncode: it applies to a text, not the object {"a":1}"#
            ),
            (
                #"json ".ids" | urlDecode == "x""#,
                #"expected json ".ids" | urlDecode == "x", but urlDecode: it applies to a text, not the list [42,7]"#
            ),
            (#"json ".ids" | sha256 == "x""#, #"expected json ".ids" | sha256 == "x", but sha256: it applies to a text, not the list [42,7]"#),
            (
                #"json ".token" | jsonpath "$.id" == 1"#,
                #"expected json ".token" | jsonpath "$.id" == 1, but jsonpath "$.id": the text is not JSON (unexpected character 'a' at byte 0): the text "abc123""#
            ),
        ])
    }
}
