import Foundation

/// The test servers for async tests: the same servers, started (once) on a
/// thread of their own. Starting one waits on openssl, nginx or python3,
/// seconds on a loaded machine, under a lock the other tests wanting it
/// wait on; on Swift concurrency's pool (a thread a core) those waits held
/// every other test of the suite.
extension TestServers {
    /// The plain HTTP server's base URL.
    static func plain() async throws -> String { try await Binary.offPool { try plain() } }
    /// The HTTPS server and its certificates.
    static func tls() async throws -> TLS { try await Binary.offPool { try tls() } }
    /// The server on a Unix socket.
    static func unixSocket() async throws -> String { try await Binary.offPool { try unixSocket() } }
    /// An HTTPS server with the given certificate.
    static func tls(certificate: String, key: String, name: String) async throws -> String {
        try await Binary.offPool { try tls(certificate: certificate, key: key, name: name) }
    }
    /// The server asking for a client certificate.
    static func mutualTLS() async throws -> TLS { try await Binary.offPool { try mutualTLS() } }
    /// The forward proxy named `name`.
    static func proxy(_ name: String = "proxy") async throws -> Proxy { try await Binary.offPool { try proxy(name) } }
    /// nginx over HTTP/2, when nginx is installed.
    static func nginxHTTP2() async throws -> TLS? { try await Binary.offPool { try nginxHTTP2() } }
    /// nginx over h2c and a Unix socket, when nginx is installed.
    static func nginxH2CAndUnix() async throws -> (url: String, socket: String, certificates: URL)? {
        try await Binary.offPool { try nginxH2CAndUnix() }
    }
    /// nginx with WebDAV, when nginx is installed.
    static func nginxWebDAV() async throws -> (url: String, files: URL)? { try await Binary.offPool { try nginxWebDAV() } }
    /// The shared cache's store.
    static func cacheStore() async throws -> (url: String, log: URL) { try await Binary.offPool { try cacheStore() } }
}

extension ExampleServer {
    /// The examples' server's base URL, started on a thread of its own.
    static func url() async throws -> String { try await Binary.offPool { try url() } }
}
