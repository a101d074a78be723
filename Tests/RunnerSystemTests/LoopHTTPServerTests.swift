import Foundation
import PromiseEngine
import Testing

@testable import RunnerSystem

/// The event loop's small HTTP server, driven in process over a loopback
/// socket.
@Suite("LoopHTTPServer")
struct LoopHTTPServerTests {
    /// Sends `request` to 127.0.0.1:`port` and reads until the server
    /// closes; nil when it cannot connect.
    private func exchange(_ request: String, port: UInt16) -> String? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return nil }
        _ = request.withCString { send(fd, $0, strlen($0), 0) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }

    private func serve() throws -> LoopHTTPServer {
        try LoopHTTPServer.listen("127.0.0.1:0") { method, path in
            path == "/metrics" ? .init(status: 200, body: "\(method) seen\n") : .init(status: 404, body: "no\n")
        }.get()
    }

    @Test("a GET is answered with its length and Connection: close; other paths 404, other methods 405; a query is not the path")
    func answers() throws {
        let server = try serve()
        defer { _ = server.close(after: .zero) }
        let ok = try #require(exchange("GET /metrics?x=1 HTTP/1.1\r\nHost: a\r\n\r\n", port: server.port))
        #expect(ok.hasPrefix("HTTP/1.1 200 OK\r\n") && ok.contains("Content-Length: 9\r\n") && ok.contains("Connection: close\r\n"), "\(ok)")
        #expect(ok.hasSuffix("\r\n\r\nGET seen\n"))
        #expect(exchange("GET /other HTTP/1.1\r\n\r\n", port: server.port)?.hasPrefix("HTTP/1.1 404") == true)
        #expect(exchange("POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n", port: server.port)?.hasPrefix("HTTP/1.1 405") == true)
        let head = try #require(exchange("HEAD /metrics HTTP/1.1\r\n\r\n", port: server.port))
        #expect(head.hasPrefix("HTTP/1.1 200") && head.hasSuffix("\r\n\r\n"), "\(head)")
    }

    @Test("closed after the wait: no connection is taken any more")
    func closes() async throws {
        let server = try serve()
        #expect(exchange("GET /metrics HTTP/1.1\r\n\r\n", port: server.port) != nil)
        _ = await server.close(after: .milliseconds(10)).settled
        #expect(exchange("GET /metrics HTTP/1.1\r\n\r\n", port: server.port) == nil)
    }

    @Test("addresses: a literal IPv4 or bracketed IPv6 address and a port; anything else is refused with its reason")
    func addresses() {
        #expect(LoopHTTPServer.parse("127.0.0.1:9464")?.2 == 9464)
        #expect(LoopHTTPServer.parse("[::1]:9464")?.1 == "::1")
        #expect(LoopHTTPServer.parse("9464") == nil && LoopHTTPServer.parse("::1:9464") == nil && LoopHTTPServer.parse(":9464") == nil)
        guard case .failure(let error) = LoopHTTPServer.listen("localhost:9464", respond: { _, _ in .init(status: 200, body: "") }) else {
            Issue.record("a host name was taken")
            return
        }
        #expect(error.description.contains("is not an address and a port"))
    }
}
