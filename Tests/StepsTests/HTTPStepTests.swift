import Foundation
import Glibc
import JSON
import PromiseEngine
import Testing
import WorkflowModel

@testable import Steps

@Suite("HTTP steps")
struct HTTPStepTests {
    let runner = SystemStepRunner()

    @Test func getReturnsStatusBodyAndHeadersLookedUpCaseInsensitively() async throws {
        let folder = TemporaryFolder()
        let result = try #require(
            value(
                await run(
                    http(.GET, try await HTTPTestServer.url("/headers")), runner,
                    in: folder.context())))
        #expect(result.status == 200)
        #expect(try result.value(of: .status) == "200")
        #expect(try result.value(of: .body) == "with headers")
        #expect(try result.value(of: .header("x-CUSTOM")) == "custom value")
        #expect(try result.value(of: .header("Content-Type")) == "text/plain")
        #expect(throws: StepFailure.self) { try result.value(of: .header("X-Not-Sent")) }
    }

    @Test func duplicateResponseHeadersAreKeptInOrder() async throws {
        let folder = TemporaryFolder()
        let result = try #require(
            value(
                await run(
                    http(.GET, try await HTTPTestServer.url("/duplicate-headers")), runner,
                    in: folder.context())))
        #expect(result.headers.filter { $0.name == "X-Dup" }.map(\.value) == ["one", "two"])
        #expect(result.header("x-dup") == "one, two", "every value, joined as RFC 9110 §5.3 says")
        #expect(result.http?.version == "1.1")
        #expect(result.http?.url.hasSuffix("/duplicate-headers") == true)
    }

    @Test(arguments: [HTTPMethod.POST, .PUT, .PATCH, .DELETE, .OPTIONS, .GET])
    func everyMethodIsSentAsItself(_ method: HTTPMethod) async throws {
        let folder = TemporaryFolder()
        let result = try #require(
            value(
                await run(
                    http(method, try await HTTPTestServer.url("/echo")), runner,
                    in: folder.context())))
        #expect(try result.value(of: .json(JSONPath([.key("method")]))) == method.rawValue)
    }

    @Test func headHasStatusAndHeadersButNoBody() async throws {
        let folder = TemporaryFolder()
        let result = try #require(
            value(
                await run(
                    http(.HEAD, try await HTTPTestServer.url("/hello")), runner,
                    in: folder.context())))
        #expect(result.status == 200)
        #expect(result.body?.text == "")
        #expect(try result.value(of: .header("content-length")) == "5")
        // The size HEAD reports is not a body: the body limit does not apply.
        let tiny = SystemStepRunner(configuration: StepsConfiguration(bodyLimit: 1))
        #expect(value(await run(http(.HEAD, try await HTTPTestServer.url("/hello")), tiny, in: folder.context())) != nil)
    }

    @Test func headersAndTheFourKindsOfBodyAreSent() async throws {
        let folder = TemporaryFolder()
        let url = try await HTTPTestServer.url("/echo")
        let echo: (ResolvedStep) async throws -> JSONDocument = { step in
            let result = try #require(value(await run(step, runner, in: folder.context())))
            return try JSONDocument.parse(result.body?.text ?? "")
        }

        let text = try await echo(
            http(
                .POST, url, headers: [("X-Test", "one"), ("Content-Type", "text/plain")],
                body: .text("raw text ✓")))
        #expect(text[JSONPath([.key("body")])] == .string("raw text ✓"))
        #expect(text[JSONPath([.key("headers"), .key("x-test")])] == .string("one"))
        #expect(text[JSONPath([.key("headers"), .key("content-type")])] == .string("text/plain"))

        let json = try await echo(http(.PUT, url, body: .json("{\"a\": [1, 2]}")))
        #expect(json[JSONPath([.key("body")])] == .string("{\"a\": [1, 2]}"))
        #expect(json[JSONPath([.key("headers"), .key("content-type")])] == .string("application/json"))

        let form = try await echo(
            http(
                .POST, url,
                body: .form([
                    NamedText(name: "name", value: "Ada Lovelace"),
                    NamedText(name: "q", value: "a&b=c/é"),
                ])))
        #expect(form[JSONPath([.key("body")])] == .string("name=Ada+Lovelace&q=a%26b%3Dc%2F%C3%A9"))
        #expect(form[JSONPath([.key("headers"), .key("content-type")])] == .string("application/x-www-form-urlencoded"))

        // A body file is streamed from disk, relative to the working folder.
        let content = String(repeating: "line of the body file\n", count: 100_000)
        try content.write(toFile: folder.file("upload.txt"), atomically: true, encoding: .utf8)
        let file = try await echo(http(.POST, url, body: .file("upload.txt")))
        #expect(file[JSONPath([.key("body_length")])] == .number(JSONNumber(content.utf8.count)))
        let missing = try #require(
            failure(
                await run(
                    http(.POST, url, body: .file("absent.txt")), runner,
                    in: folder.context())))
        #expect(missing.kind == .file)
        #expect(missing.message.contains("absent.txt"))
    }

    @Test func statusExpectations() async throws {
        let folder = TemporaryFolder()
        let unavailable = try await HTTPTestServer.url("/status/503")
        let failed = try #require(failure(await run(http(.GET, unavailable), runner, in: folder.context())))
        #expect(failed.kind == .http)
        #expect(failed.message == "expected status 200-399 (the default), got 503; body: \"status 503\"")
        #expect(failed.result?.status == 503)
        #expect(failed.result?.body?.text == "status 503")

        #expect(value(await run(http(.GET, unavailable, expect: [.status([.code(503)])]), runner, in: folder.context())) != nil)
        #expect(
            value(
                await run(
                    http(.GET, unavailable, expect: [.status([.range(500...599)])]), runner,
                    in: folder.context())) != nil)
        let wrong = try #require(
            failure(
                await run(
                    http(.GET, unavailable, expect: [.status([.code(200), .range(200...299)])]),
                    runner, in: folder.context())))
        #expect(wrong.kind == .http)
        #expect(wrong.message.hasPrefix("expected status 200 or 2xx, got 503"))
    }

    @Test func redirectsAreFollowedUpToTheLimit() async throws {
        let folder = TemporaryFolder()
        let url = try await HTTPTestServer.url("/redirect/3")
        let followed = try #require(value(await run(http(.GET, url), runner, in: folder.context())))
        #expect(followed.status == 200)
        #expect(followed.body?.text == "arrived")

        // More redirects than allowed is an error naming the count (a loop
        // must not pass as a 302), with the last response in the result.
        let stopped = try #require(failure(await run(http(.GET, url, redirects: 2), runner, in: folder.context())))
        #expect(stopped.kind == .network)
        #expect(stopped.message.contains("too many redirects: stopped after 2 ('redirects 2')"), "\(stopped.message)")
        #expect(stopped.result?.status == 302)

        // `redirects 0` asks for the redirect itself.
        let none = try #require(value(await run(http(.GET, url, redirects: 0), runner, in: folder.context())))
        #expect(none.status == 302)
        #expect(none.header("Location") == "/redirect/2")
        let strict = try #require(
            failure(
                await run(
                    http(.GET, url, redirects: 0, expect: [.status([.code(200)])]),
                    runner, in: folder.context())))
        #expect(strict.kind == .http)
        #expect(strict.message.hasPrefix("expected status 200, got 302"))

        // A loop, at the default limit.
        let base = try await HTTPTestServer.baseURL()
        let itself = try #require(failure(await run(http(.GET, base + "/self-redirect"), runner, in: folder.context())))
        #expect(itself.kind == .network)
        #expect(itself.message.contains("too many redirects: stopped after 10 (the default, 10"), "\(itself.message)")
    }

    @Test func networkFailures() async throws {
        let folder = TemporaryFolder()
        let refused = try #require(
            failure(
                await run(
                    http(.GET, "http://127.0.0.1:\(HTTPTestServer.closedPort())/"),
                    runner, in: folder.context())))
        #expect(refused.kind == .network)
        #expect(refused.message.contains("connection refused"))

        let reset = try #require(
            failure(
                await run(
                    http(.GET, try await HTTPTestServer.url("/reset")), runner,
                    in: folder.context())))
        #expect(reset.kind == .network)

        // A certificate nothing trusts: the TLS handshake fails.
        let untrusted = try #require(
            failure(
                await run(
                    http(.GET, try await HTTPTestServer.tlsBaseURL() + "/hello"),
                    runner, in: folder.context())))
        #expect(untrusted.kind == .network)
        #expect(untrusted.message.contains("certificate"), "\(untrusted.message)")

        let invalid = try #require(failure(await run(http(.GET, "ftp://127.0.0.1/x"), runner, in: folder.context())))
        #expect(invalid.kind == .network)
        #expect(invalid.message.contains("not an http"))
    }

    @Test(arguments: ["/hang", "/trickle"])
    func cancellingEndsTheRequestAndSettlesAsCancelled(_ path: String) async throws {
        let folder = TemporaryFolder()
        let received = TransferLog()
        let context = StepContext(
            id: "t", workingDirectory: folder.path, environment: [:],
            transfer: { bytes, _ in received.record(bytes) })
        let promise = runner.run(http(.GET, try await HTTPTestServer.url(path)), in: context)
        if path == "/trickle" {
            #expect(await eventually { received.last >= 2 })
        } else {
            try await Task.sleep(for: .milliseconds(200))
        }
        // When it settled, on the settling thread (not when this task next got a pool thread).
        let settledAt = Lock<ContinuousClock.Instant?>(nil)
        let watched = promise.tap { _ in settledAt.withLock { $0 = .now } }
        let cancelled = ContinuousClock.now
        promise.cancel()
        #expect(await outcome(of: promise).isCancelled)
        _ = await watched.settled
        let settled = try #require(settledAt.withLock { $0 })
        #expect(cancelled.duration(to: settled) < .seconds(30))
    }

    @Test func shutdownCancelsRequestsInFlightAndRefusesNewOnes() async throws {
        let folder = TemporaryFolder()
        let ending = SystemStepRunner()
        let hanging = ending.run(http(.GET, try await HTTPTestServer.url("/hang")), in: folder.context())
        try await Task.sleep(for: .milliseconds(100))
        try await ending.shutdown().value
        #expect(await outcome(of: hanging).isCancelled)
        #expect(await run(http(.GET, try await HTTPTestServer.url("/hello")), ending, in: folder.context()).isCancelled)
    }

    @Test func theIdleTimeoutIsKindTimeout() async throws {
        let folder = TemporaryFolder()
        let impatient = SystemStepRunner(configuration: StepsConfiguration(httpIdleTimeout: .seconds(1)))
        let failed = try #require(
            failure(
                await run(
                    http(.GET, try await HTTPTestServer.url("/hang")), impatient,
                    in: folder.context())))
        #expect(failed.kind == .timeout)
    }

    @Test(arguments: [false, true])
    func aBodyOverTheLimitFailsClearly(_ chunked: Bool) async throws {
        let folder = TemporaryFolder()
        let small = SystemStepRunner(configuration: StepsConfiguration(bodyLimit: 10_000))
        let url = try await HTTPTestServer.url("/large?bytes=2000000&chunked=\(chunked ? 1 : 0)")
        let failed = try #require(failure(await run(http(.GET, url), small, in: folder.context())))
        #expect(failed.kind == .network)
        #expect(failed.message.contains("at most 10000 bytes"))
        #expect(failed.message.contains("save"))
        #expect(failed.result?.status == 200)
        let fits = try #require(
            value(
                await run(
                    http(.GET, try await HTTPTestServer.url("/large?bytes=10000")), small,
                    in: folder.context())))
        #expect(fits.body?.totalBytes == 10_000)
    }
}

/// The byte counts a step's `transfer` callback heard.
final class TransferLog: Sendable {
    private let counts = Lock<[(Int64, Int64?)]>([])

    func record(_ received: Int64, _ expected: Int64? = nil) {
        counts.withLock { $0.append((received, expected)) }
    }

    var last: Int64 { counts.withLock { $0.last?.0 ?? 0 } }
    var lastExpected: Int64? { counts.withLock { $0.last?.1 ?? nil } }
    var count: Int { counts.withLock { $0.count } }
}
