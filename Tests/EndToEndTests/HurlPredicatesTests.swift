import Foundation
import Testing

/// Hurl's predicates end to end (`isUuid`, `isIsoDate`, `isIpv4`,
/// `isIpv6`, `isNumber`, `isString`, `isBoolean`, `isList`, `isObject`,
/// `isEmpty`, each after `not` too) on JSON values, a body and a header,
/// against the tests' server on 127.0.0.1: each one holding, and each one
/// failing with the predicate that was expected and the value that came.
@Suite("End to end: Hurl's predicates")
struct HurlPredicatesTests {
    private func run(_ workflow: String, in space: Workspace) async throws -> WorkflowRun {
        let base = try await TestServers.plain()
        return try await space.run("workflow \"predicates\"\nvar base = \"\(base)\"\n" + workflow)
    }

    /// A document with one value of each shape the predicates tell apart,
    /// sent to the server's `/mirror`, which answers with it.
    private static let document = #"""
        json '{"id": "123e4567-e89b-12d3-a456-426614174000", "at": "2026-01-31T12:00:00Z", "day": "2026-01-31", "v4": "10.0.0.1", "v6": "::1", "n": 3, "s": "text", "t": true, "o": {"a": 1}, "l": [1, 2], "e": [], "eo": {}, "es": ""}'
        """#

    @Test("every predicate holds on a value of its shape, and not one on a value of another shape")
    func holding() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await run(
            """
            a: http POST "{{base}}/mirror" {
              \(Self.document)
              expect json ".id" isUuid
              expect json ".at" isIsoDate
              expect json ".v4" isIpv4
              expect json ".v6" isIpv6
              expect json ".v4" not isIpv6
              expect json ".n" isNumber
              expect json ".s" isString
              expect json ".n" not isString
              expect json ".t" isBoolean
              expect json ".s" not isBoolean
              expect json ".o" isObject
              expect json ".l" not isObject
              expect json ".l" isList
              expect json ".o" not isList
              expect json ".e" isEmpty
              expect json ".eo" isEmpty
              expect json ".es" isEmpty
              expect json ".l" not isEmpty
            }
            """, in: space)
        #expect(run.statuses == ["a succeeded"], "\(run.stdout)\(run.stderr)")
    }

    @Test("each predicate failing says which was expected and the value that came")
    func failing() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let cases: [(predicate: String, message: String)] = [
            (#"json ".id" isUuid"#, #"expected json .id isUuid, got "not-a-uuid""#),
            (#"json ".day" isIsoDate"#, #"expected json .day isIsoDate, got "2026-01-31""#),
            (#"json ".v6" isIpv4"#, #"expected json .v6 isIpv4, got "::1""#),
            (#"json ".v4" isIpv6"#, #"expected json .v4 isIpv6, got "10.0.0.1""#),
            (#"json ".l" isEmpty"#, "expected json .l isEmpty, got [1,2]"),
            (#"json ".o" isList"#, #"expected json .o isList, got {"a":1}"#),
            (#"json ".n" isString"#, "expected json .n isString, got 3"),
            (#"json ".s" isBoolean"#, #"expected json .s isBoolean, got "text""#),
            (#"json ".l" isObject"#, "expected json .l isObject, got [1,2]"),
            (#"json ".n" not isNumber"#, "expected json .n not isNumber, got 3"),
            (#"json ".t" not isBoolean"#, "expected json .t not isBoolean, got true"),
        ]
        var workflow = "parallel keep-going {\n"
        for (index, check) in cases.enumerated() {
            workflow += "  p\(index): http POST \"{{base}}/mirror\" {\n"
            workflow +=
                #"    json '{"id": "not-a-uuid", "day": "2026-01-31", "v4": "10.0.0.1", "v6": "::1", "n": 3, "s": "text", "t": true, "o": {"a": 1}, "l": [1, 2]}'"#
            workflow += "\n    expect \(check.predicate)\n  }\n"
        }
        let run = try await run(workflow + "}\n", in: space)
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        for (index, check) in cases.enumerated() {
            #expect(run.errorMessage(of: "p\(index)") == check.message, "\(check.predicate): \(run.errorMessage(of: "p\(index)"))")
            #expect(run.error(of: "p\(index)")?["kind"] as? String == "expect", "\(check.predicate)")
        }
    }

    @Test("on a body and a header (text): isString holds, isBoolean, isObject and isIpv6 fail showing the text")
    func onText() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await run(
            """
            parallel keep-going {
              a: http GET "{{base}}/hello" {
                expect body isString
                expect body not isBoolean
                expect body not isObject
                expect header "Content-Type" isString
                expect header "Content-Type" not isEmpty
              }
              b: http GET "{{base}}/hello" { expect body isBoolean }
              c: http GET "{{base}}/hello" { expect header "Content-Type" isObject }
              d: http GET "{{base}}/redirect-to?status=200&location=10.1.2.3" { expect header "Location" isIpv6 }
              e: http GET "{{base}}/hello" { expect body not isString }
            }
            """, in: space)
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.statuses == ["a succeeded", "b failed", "c failed", "d failed", "e failed"], "\(run.stdout)\(run.stderr)")
        #expect(run.errorMessage(of: "b") == #"expected body isBoolean, got "hello""#)
        #expect(run.errorMessage(of: "c") == #"expected header "Content-Type" isObject, got "text/plain""#)
        #expect(run.errorMessage(of: "d") == #"expected header "Location" isIpv6, got "10.1.2.3""#)
        #expect(run.errorMessage(of: "e") == #"expected body not isString, got "hello""#)
    }

    @Test("check suggests a predicate for a misspelt one")
    func misspeltPredicate() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await run(#"a: http GET "{{base}}/json" { expect json ".token" isUUid }"#, in: space)
        #expect(run.status == 2)
        #expect(run.stderr.contains("did you mean 'isUuid'"), "\(run.stderr)")
    }
}
