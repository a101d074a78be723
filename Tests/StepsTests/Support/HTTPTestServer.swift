import Foundation
import Glibc
import PromiseEngine
import WorkflowModel

@testable import Steps

/// The tests' HTTP server (Tests/Fixtures/http-test-server.py), on
/// 127.0.0.1 only, started once per test process by a runner of its own
/// (as an `exec` step that never ends; the server exits with the test
/// process).
enum HTTPTestServer {
    private static let started = Lock<String?>(nil)
    private static let startedTLS = Lock<String?>(nil)
    private static let runner = SystemStepRunner()

    /// `http://127.0.0.1:PORT`, starting the server on first use.
    static func baseURL() async throws -> String {
        if let url = started.withLock({ $0 }) { return url }
        let url = try await start()
        return started.withLock { current in
            if let current { return current }
            current = url
            return url
        }
    }

    /// `https://127.0.0.1:PORT`: the same routes over TLS, with a
    /// self-signed certificate (made with openssl) that nothing trusts.
    static func tlsBaseURL() async throws -> String {
        if let url = startedTLS.withLock({ $0 }) { return url }
        let url = try await start(tls: true)
        return startedTLS.withLock { current in
            if let current { return current }
            current = url
            return url
        }
    }

    /// `http://127.0.0.1:PORT/path`.
    static func url(_ path: String) async throws -> String {
        try await baseURL() + path
    }

    private static func start(tls: Bool = false) async throws -> String {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures")
        let script = fixtures.appendingPathComponent("http-test-server.py").path
        let folder = NSTemporaryDirectory() + "/steps-http-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let portFile = folder + "/port"
        var arguments = ["python3", script, portFile]
        if tls {
            let certificate = ResolvedStep.exec(
                arguments: [
                    "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-keyout", folder + "/key.pem", "-out", folder + "/cert.pem",
                ].map { $0 }, process: ResolvedProcessOptions())
            let made = await runner.run(
                certificate,
                in: StepContext(
                    id: "cert", workingDirectory: folder,
                    environment: testEnvironment)
            ).settled
            guard made.value != nil else { throw TestServerError(message: "openssl could not make a certificate: \(made)") }
            arguments += ["--tls", folder + "/cert.pem", folder + "/key.pem"]
        }
        let step = ResolvedStep.exec(arguments: arguments.map { $0 }, process: ResolvedProcessOptions())
        let server = runner.run(step, in: StepContext(id: "http-server", workingDirectory: folder, environment: testEnvironment))
        let deadline = ContinuousClock.now + .seconds(60)
        // At least one look after the deadline: a task that waited long
        // for a thread (other tests blocking the pool) still sees the file.
        var looked = false
        while ContinuousClock.now < deadline || !looked {
            looked = ContinuousClock.now >= deadline
            if let text = try? String(contentsOfFile: portFile, encoding: .utf8), let port = Int(text) {
                return (tls ? "https" : "http") + "://127.0.0.1:\(port)"
            }
            if let outcome = server.outcome {
                throw TestServerError(message: "the test HTTP server ended: \(outcome)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TestServerError(message: "the test HTTP server did not start within 60 s")
    }

    /// A loopback port nothing listens on (bound, then closed).
    static func closedPort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

struct TestServerError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// An `http` step.
func http(
    _ method: HTTPMethod, _ url: String, headers: [(String, String)] = [], body: ResolvedBody = .none,
    redirects: Int? = nil, save: String? = nil, expect: [ResolvedExpectation] = [], capture: [Capture] = []
) -> ResolvedStep {
    .http(
        ResolvedHTTPRequest(
            method: method, url: url,
            headers: headers.map { NamedText(name: $0.0, value: $0.1) },
            body: body, redirects: redirects, save: save.map { $0 },
            expectations: expect, captures: capture))
}
