import Foundation
import JSON
import PromiseEngine
import Testing
import WorkflowModel

@testable import Steps

@Suite("HTTP expectations and captures")
struct HTTPExpectationTests {
    let runner = SystemStepRunner()

    private func path(_ text: String) -> JSONPath {
        var components: [JSONPath.Component] = []
        for part in text.split(separator: ".") {
            if let index = Int(part) { components.append(.index(index)) } else { components.append(.key(String(part))) }
        }
        return JSONPath(components)
    }

    private func json(_ text: String, _ op: ComparisonOperator, _ literal: ResolvedJSONLiteral) -> ResolvedExpectation {
        .json(path(text), .compare(op, literal))
    }

    @Test func jsonComparisonsThatHold() async throws {
        let folder = TemporaryFolder()
        let expectations: [ResolvedExpectation] = [
            json("token", .equal, .string("abc123")),
            json("token", .notEqual, .string("other")),
            json("token", .less, .string("abd")),
            json("count", .equal, .integer("3")),
            json("count", .equal, .number(3.0)),
            json("count", .greater, .integer("2")),
            json("count", .lessOrEqual, .integer("3")),
            json("ratio", .less, .number(0.75)),
            json("ratio", .greaterOrEqual, .number(0.5)),
            json("big", .greater, .integer(String(Int.max))),
            json("ok", .equal, .boolean(true)),
            json("missing", .equal, .null),
            json("items.0.id", .equal, .integer("42")),
            json("items.-1.name", .equal, .string("second")),
            json("count", .notEqual, .string("3")),
            .json(JSONPath([.key("odd key")]), .compare(.equal, .string("odd value"))),
            .json(path("missing"), .exists),
            .json(path("nested.a.b"), .exists),
            .header(name: "content-type", .contains("json")),
            .header(name: "Content-Type", .matches(RegexPattern("^application/[a-z]+$"))),
            .contains(.body, "\"token\""),
            .matches(.body, RegexPattern("\"id\": [0-9]+")),
        ]
        let result = try #require(
            value(
                await run(
                    http(.GET, try await HTTPTestServer.url("/json"), expect: expectations),
                    runner, in: folder.context())))
        #expect(try result.value(of: .json(path("items.1.id"))) == "7")
        #expect(try result.value(of: .json(path("nested"))) == "{\"a\":{\"b\":\"deep\"}}")
    }

    @Test(arguments: [
        (ComparisonOperator.equal, ResolvedJSONLiteral.integer("41"), "expected json .items[0].id == 41, got 42"),
        (.less, .integer("42"), "expected json .items[0].id < 42, got 42"),
        (.greater, .string("40"), "expected json .items[0].id > \"40\", got 42"),
        (.equal, .boolean(true), "expected json .items[0].id == true, got 42"),
    ])
    func jsonComparisonsThatFailSayWhatCame(_ op: ComparisonOperator, _ literal: ResolvedJSONLiteral, _ message: String) async throws {
        let folder = TemporaryFolder()
        let failed = try #require(
            failure(
                await run(
                    http(.GET, try await HTTPTestServer.url("/json"), expect: [json("items.0.id", op, literal)]),
                    runner, in: folder.context())))
        #expect(failed.kind == .expect)
        #expect(failed.message == message)
        #expect(failed.result?.status == 200)
    }

    @Test func aPathThatLeadsNowhereOrABodyThatIsNotJSON() async throws {
        let folder = TemporaryFolder()
        let url = try await HTTPTestServer.url("/json")
        let missing = try #require(
            failure(
                await run(
                    http(.GET, url, expect: [.json(path("items.5.id"), .exists)]),
                    runner, in: folder.context())))
        #expect(missing.kind == .expect)
        #expect(missing.message.hasPrefix("expected json .items[5].id to exist, but at .items: index 5 out of range (2 elements)"))

        let notJSON = try #require(
            failure(
                await run(
                    http(.GET, try await HTTPTestServer.url("/hello"), expect: [json("a", .equal, .integer("1"))]),
                    runner, in: folder.context())))
        #expect(notJSON.kind == .expect)
        #expect(notJSON.message.contains("the body is not JSON"))
        #expect(notJSON.message.hasSuffix("; body: \"hello\""))
    }

    @Test func headerAndBodyExpectationsThatFail() async throws {
        let folder = TemporaryFolder()
        let url = try await HTTPTestServer.url("/headers")
        let absent = try #require(
            failure(
                await run(
                    http(.GET, url, expect: [.header(name: "X-Absent", .contains("a"))]),
                    runner, in: folder.context())))
        #expect(absent.message == "expected header X-Absent to contain \"a\", but the response has no header X-Absent")
        let wrong = try #require(
            failure(
                await run(
                    http(.GET, url, expect: [.header(name: "x-custom", .contains("other"))]),
                    runner, in: folder.context())))
        #expect(wrong.message == "expected header x-custom to contain \"other\", got \"custom value\"")
        let body = try #require(
            failure(
                await run(
                    http(.GET, url, expect: [.matches(.body, RegexPattern("^v[0-9]+"))]),
                    runner, in: folder.context())))
        #expect(body.kind == .expect)
        #expect(body.message == "expected body to match '^v[0-9]+'; body: \"with headers\"")
    }

    @Test func capturesFromJSONHeadersAndBody() async throws {
        let folder = TemporaryFolder()
        let captures = [
            Capture(name: "token", source: .json(path("token"))),
            Capture(name: "items", source: .json(path("items"))),
            Capture(name: "type", source: .header("CONTENT-TYPE")),
            Capture(name: "first", source: .matches(.body, RegexPattern("\"name\": \"([a-z]+)\""))),
        ]
        let result = try #require(
            value(
                await run(
                    http(.GET, try await HTTPTestServer.url("/json"), capture: captures),
                    runner, in: folder.context())))
        #expect(result.captures["token"] == "abc123")
        #expect(result.captures["items"] == "[{\"id\":42,\"name\":\"first\"},{\"id\":7,\"name\":\"second\"}]")
        #expect(result.captures["type"] == "application/json")
        #expect(result.captures["first"] == "first")

        let etag = try #require(
            value(
                await run(
                    http(.GET, try await HTTPTestServer.url("/headers"), capture: [Capture(name: "etag", source: .header("etag"))]),
                    runner, in: folder.context())))
        #expect(etag.captures["etag"] == "\"v1\"")
    }

    @Test func manyRequestsAtOnceAllComplete() async throws {
        let folder = TemporaryFolder()
        let context = folder.context()
        let url = try await HTTPTestServer.url("/slow?ms=50")
        let statuses = await withTaskGroup(of: Int?.self) { group in
            for _ in 0..<200 {
                group.addTask { await run(http(.GET, url), runner, in: context).value?.status }
            }
            var all: [Int?] = []
            for await status in group { all.append(status) }
            return all
        }
        #expect(statuses.count == 200)
        #expect(statuses.allSatisfy { $0 == 200 })
    }
}
