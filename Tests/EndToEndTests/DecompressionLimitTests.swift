import Foundation
import Testing

/// A compressed body is decoded as it streams in, within a ratio: a body
/// that decodes to more than 1,000 times its size as it came fails the
/// step (kept in memory or saved), so a small download cannot become
/// gigabytes. A step that asks for `Accept-Encoding: identity` gets the
/// bytes as they came.
@Suite("End to end: decoded bodies within a ratio")
struct DecompressionLimitTests {
    @Test("a body that decodes to more than 1,000 times its size fails the step, in memory or saved, over HTTP and HTTPS; nothing is left on disk")
    func bombRefused() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let base = try await TestServers.plain()
        let tls = try await TestServers.tls()
        let run = try await space.run(
            """
            workflow "bombs"
            memory: http GET "\(base)/bomb?mb=20" { allow-failure }
            saved: http GET "\(base)/bomb?mb=50" { save "big.bin"; allow-failure }
            secure: http GET "\(tls.url)/bomb?mb=50" { insecure; save "secure.bin"; allow-failure }
            small: http GET "\(base)/encoded/gzip" { expect body contains "hello, compressed world!" }
            """, killedAfter: 120)
        #expect(run.run.status == 0, "\(run.run.stdout)\(run.run.stderr)")
        for id in ["memory", "saved", "secure"] {
            let error = run.run.error(of: id)
            #expect(run.run.step(id)?["status"] as? String == "failed", "\(id): \(run.run.step(id) ?? [:])")
            let message = error?["message"] as? String ?? ""
            #expect(message.contains("the gzip body decodes to more than 1000 times its size as it came"), "\(id): \(message)")
            #expect(message.contains("at most 1000 to 1 is taken"), "\(id): \(message)")
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: space.folder.path)
        #expect(!left.contains { $0.hasSuffix(".bin") || $0.contains(".tmp") }, "\(left)")
    }

    @Test("Accept-Encoding: identity gets the body as it came, even when the server compresses it anyway")
    func identityNotDecoded() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let base = try await TestServers.plain()
        let run = try await space.run(
            """
            workflow "raw"
            raw: http GET "\(base)/encoded/gzip" { header "Accept-Encoding" "identity"; save "raw.gz" }
            """)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let saved = try Data(contentsOf: space.folder.appendingPathComponent("raw.gz"))
        // gzip's magic number: the bytes the server sent, not decoded.
        #expect(Array(saved.prefix(2)) == [0x1F, 0x8B], "\(saved.count) bytes")
    }
}
