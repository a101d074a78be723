import Foundation
import Synchronization
import Testing

/// The HTTP servers of the end-to-end HTTP tests, on 127.0.0.1 only, each
/// started once per test process (they exit with it): the Steps tests'
/// server over HTTP and over HTTPS (with a certificate authority made by
/// openssl for the run), the same requiring a client certificate, a
/// forward proxy, and nginx over HTTPS with HTTP/2 when nginx is installed.
///
/// A test that needs nginx says so with `.enabled(if:
/// TestServers.nginxShouldRun, TestServers.nginxSkipReason)` and takes its
/// server through `required`; one that tries nginx beside what it checks
/// without it, through `ifInstalled`. Without nginx such a test is skipped
/// (or its nginx part left out), saying why, except in CI
/// (PROMISE_RUN_REQUIRE_TOOLS=1, which .ci/run sets after .ci/install-deps
/// installed nginx), where it fails saying nginx is missing.
enum TestServers {
    /// Everything made for HTTPS: the folder holds ca.pem, server.pem,
    /// server-key.pem, client.pem and client-key.pem.
    struct TLS {
        var url: String
        var certificates: URL
        func file(_ name: String) -> String { certificates.appendingPathComponent(name).path }
    }

    struct Proxy {
        var url: String
        /// The request lines the proxy received, one a line.
        var log: URL
        var requests: [String] {
            ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }
    }

    /// nginx's path, if it is installed.
    static let nginx: String? = ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Whether CI requires every tool a test needs (`.ci/run` sets
    /// PROMISE_RUN_REQUIRE_TOOLS=1): a missing one fails the test.
    static let toolsRequired = ProcessInfo.processInfo.environment["PROMISE_RUN_REQUIRE_TOOLS"] == "1"

    /// Whether to run the tests that need nginx: it is installed, or CI
    /// requires them (they then fail saying it is missing).
    static let nginxShouldRun = nginx != nil || toolsRequired

    static let nginxSkipReason: Comment = """
        nginx is not installed, so this test of HTTP/2, HTTPS on a Unix socket or WebDAV is skipped; \
        `.ci/install-deps` installs nginx, and CI (PROMISE_RUN_REQUIRE_TOOLS=1) fails without it
        """

    /// The nginx server of a test enabled by `nginxShouldRun`; without
    /// nginx (in CI), the test fails saying so.
    static func required<Server>(_ server: Server?, sourceLocation: SourceLocation = #_sourceLocation) throws -> Server {
        try #require(
            server, "nginx is required here (PROMISE_RUN_REQUIRE_TOOLS=1) but not installed: run .ci/install-deps",
            sourceLocation: sourceLocation)
    }

    /// The nginx server of a test that tries it beside what it checks
    /// without it: nil when nginx is not installed (the part left out is
    /// named on the test's output), a failed test when CI requires it.
    static func ifInstalled<Server>(_ server: Server?, _ part: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Server? {
        if server == nil, !toolsRequired {
            print("nginx is not installed (.ci/install-deps installs it): \(part) is not tried here")
            return nil
        }
        return try required(server, sourceLocation: sourceLocation)
    }

    private static let started = Mutex<[String: String]>([:])
    /// Held while a server starts, so that each starts once.
    private static let starting = Mutex<Void>(())
    private static let certificateFolder = Mutex<URL?>(nil)

    static func plain() throws -> String {
        try once("plain") { try startScript("http-test-server.py", []) }
    }

    static func tls() throws -> TLS {
        let folder = try certificates()
        let url = try once("tls") {
            try startScript(
                "http-test-server.py",
                [
                    "--tls", folder.appendingPathComponent("server.pem").path,
                    folder.appendingPathComponent("server-key.pem").path,
                ], scheme: "https")
        }
        return TLS(url: url, certificates: folder)
    }

    /// The plain server on a Unix domain socket: its path.
    static func unixSocket() throws -> String {
        try once("unix") {
            let path = try Binary.temporaryFolder().appendingPathComponent("http.sock").path
            _ = try startScript("http-test-server.py", ["--unix", path])
            return path
        }
    }

    /// HTTPS with a certificate and key of the caller's (`name` keeps one
    /// server per pair).
    static func tls(certificate: String, key: String, name: String) throws -> String {
        try once("tls-" + name) {
            try startScript("http-test-server.py", ["--tls", certificate, key], scheme: "https")
        }
    }

    /// HTTPS that requires a client certificate signed by the test CA.
    static func mutualTLS() throws -> TLS {
        let folder = try certificates()
        let url = try once("mutual") {
            try startScript(
                "http-test-server.py",
                [
                    "--tls", folder.appendingPathComponent("server.pem").path,
                    folder.appendingPathComponent("server-key.pem").path,
                    "--client-ca", folder.appendingPathComponent("ca.pem").path,
                ],
                scheme: "https")
        }
        return TLS(url: url, certificates: folder)
    }

    /// One proxy per `name`: a test that counts the requests a proxy saw
    /// gets one no test running beside it uses.
    static func proxy(_ name: String = "proxy") throws -> Proxy {
        let url = try once("proxy-\(name)") {
            let log = try Binary.temporaryFolder().appendingPathComponent("proxy.log")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            started.withLock { $0["proxy-log-\(name)"] = log.path }
            return try startScript("http-proxy.py", [], extra: [log.path])
        }
        return Proxy(url: url, log: URL(fileURLWithPath: started.withLock { $0["proxy-log-\(name)"]! }))
    }

    /// nginx over HTTPS with HTTP/2 (the test CA's server certificate),
    /// serving `/hello` (`hello`); nil when nginx is not installed.
    static func nginxHTTP2() throws -> TLS? {
        let folder = try certificates()
        let url = try startNginx(
            "nginx", scheme: "https",
            prepare: { root in
                try Data("hello".utf8).write(to: root.appendingPathComponent("www/hello"))
            },
            server: { root, port in
                """
                    listen 127.0.0.1:\(port) ssl http2;
                    ssl_certificate \(folder.appendingPathComponent("server.pem").path);
                    ssl_certificate_key \(folder.appendingPathComponent("server-key.pem").path);
                    root \(root.path)/www;
                """
            })
        return url.map { TLS(url: $0, certificates: folder) }
    }

    /// nginx with HTTP/2 over plain HTTP (h2c, no upgrade: prior
    /// knowledge), and with HTTPS and HTTP/2 on a Unix socket (the test
    /// CA's server certificate), both serving `/hello`; nil when nginx is
    /// not installed.
    static func nginxH2CAndUnix() throws -> (url: String, socket: String, certificates: URL)? {
        let folder = try certificates()
        let url = try startNginx(
            "nginx-h2c", scheme: "http",
            prepare: { root in
                try Data("hello".utf8).write(to: root.appendingPathComponent("www/hello"))
            },
            server: { root, port in
                """
                    listen 127.0.0.1:\(port) http2;
                    listen unix:\(root.path)/tls.sock ssl http2;
                    ssl_certificate \(folder.appendingPathComponent("server.pem").path);
                    ssl_certificate_key \(folder.appendingPathComponent("server-key.pem").path);
                    root \(root.path)/www;
                """
            })
        guard let url else { return nil }
        let root = URL(fileURLWithPath: started.withLock { $0["nginx-h2c-files"]! }).deletingLastPathComponent()
        return (url, root.appendingPathComponent("tls.sock").path, folder)
    }

    /// nginx over plain HTTP/1.1 serving `/hello` (5 bytes), for what needs
    /// answers much faster than the Python test server's: on 127.0.0.1 and
    /// on a Unix socket (`socket`); nil when nginx is not installed.
    static func nginxPlain() throws -> (url: String, socket: String)? {
        let url = try startNginx(
            "nginx-plain", scheme: "http",
            prepare: { root in
                try Data("hello".utf8).write(to: root.appendingPathComponent("www/hello"))
            },
            server: { root, port in
                """
                    listen 127.0.0.1:\(port);
                    listen unix:\(root.path)/plain.sock;
                    root \(root.path)/www;
                """
            })
        guard let url else { return nil }
        let root = URL(fileURLWithPath: started.withLock { $0["nginx-plain-files"]! }).deletingLastPathComponent()
        return (url, root.appendingPathComponent("plain.sock").path)
    }

    /// nginx with WebDAV as a shared cache: `/cache/` takes GET,
    /// HEAD and PUT from anyone; `/private/` the same with Basic
    /// authentication (user `ci`, password `dav-pa55-word`). Its folder on
    /// disk is `files`. Nil when nginx is not installed.
    static func nginxWebDAV() throws -> (url: String, files: URL)? {
        let url = try startNginx(
            "nginx-webdav", scheme: "http",
            prepare: { root in
                for name in ["www/cache", "www/private"] {
                    let folder = root.appendingPathComponent(name)
                    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                    // The worker may run as another user than the master.
                    try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: folder.path)
                }
                let hashed = try Binary.runCommand("/usr/bin/openssl", ["passwd", "-apr1", "dav-pa55-word"])
                guard hashed.status == 0 else { throw ExampleServer.ServerError(message: "openssl passwd: \(hashed.stderr)") }
                try Data("ci:\(hashed.stdout.trimmingCharacters(in: .whitespacesAndNewlines))\n".utf8)
                    .write(to: root.appendingPathComponent("htpasswd"))
            },
            server: { root, port in
                """
                    listen 127.0.0.1:\(port);
                    root \(root.path)/www;
                    client_max_body_size 0;
                    location /cache/ { dav_methods PUT; create_full_put_path on; dav_access user:rw group:r all:r; }
                    location /private/ {
                        dav_methods PUT; create_full_put_path on; dav_access user:rw group:r all:r;
                        auth_basic "cache"; auth_basic_user_file \(root.path)/htpasswd;
                    }
                """
            })
        guard let url else { return nil }
        return (url, URL(fileURLWithPath: started.withLock { $0["nginx-webdav-files"]! }))
    }

    /// Tests/Fixtures/cache-store.py: a store that works, refuses, hangs,
    /// corrupts or demands a token, by path prefix; `log` has a line per
    /// request (`METHOD PATH AUTHORIZATION`).
    static func cacheStore() throws -> (url: String, log: URL) {
        let url = try once("cache-store") {
            let log = try Binary.temporaryFolder().appendingPathComponent("cache-store.log")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            started.withLock { $0["cache-store-log"] = log.path }
            return try startScript("cache-store.py", [], extra: [log.path])
        }
        return (url, URL(fileURLWithPath: started.withLock { $0["cache-store-log"]! }))
    }

    /// Starts one nginx (once per key) on a free loopback port with the
    /// `server` block's body; nil when nginx is not installed.
    private static func startNginx(
        _ key: String, scheme: String, prepare: (URL) throws -> Void,
        server: (URL, Int) -> String
    ) throws -> String? {
        guard let nginx else { return nil }
        return try once(key) {
            let root = try Binary.temporaryFolder()
            for name in ["www", "logs", "tmp"] {
                try FileManager.default.createDirectory(at: root.appendingPathComponent(name), withIntermediateDirectories: true)
            }
            try prepare(root)
            started.withLock { $0[key + "-files"] = root.appendingPathComponent("www").path }
            let port = freeLoopbackPort()
            let temp = root.appendingPathComponent("tmp").path
            try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: temp)
            let config = """
                daemon off;
                worker_processes 1;
                pid \(root.path)/nginx.pid;
                error_log \(root.path)/logs/error.log warn;
                events { worker_connections 256; }
                http {
                    access_log off;
                    client_body_temp_path \(temp); proxy_temp_path \(temp); fastcgi_temp_path \(temp);
                    uwsgi_temp_path \(temp); scgi_temp_path \(temp);
                    server {
                \(server(root, port))
                    }
                }
                """
            let configFile = root.appendingPathComponent("nginx.conf")
            try Data(config.utf8).write(to: configFile)
            let process = ChildProcess()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", fixture("run-with-parent.py"), nginx, "-c", configFile.path, "-p", root.path]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline {
                if canConnect(port: port) { return "\(scheme)://127.0.0.1:\(port)" }
                guard process.isRunning else { break }
                Thread.sleep(forTimeInterval: 0.05)
            }
            let log = (try? String(contentsOf: root.appendingPathComponent("logs/error.log"), encoding: .utf8)) ?? ""
            throw ExampleServer.ServerError(message: "nginx did not start: \(log)")
        }
    }

    // MARK: -

    private static func once(_ key: String, _ start: () throws -> String) throws -> String {
        try starting.withLock { _ in
            if let url = started.withLock({ $0[key] }) { return url }
            let url = try start()
            started.withLock { $0[key] = url }
            return url
        }
    }

    static func fixture(_ name: String) -> String {
        Binary.packageRoot.appendingPathComponent("Tests/Fixtures/\(name)").path
    }

    private static func certificates() throws -> URL {
        try certificateFolder.withLock { folder in
            if let folder { return folder }
            let made = try Binary.temporaryFolder().appendingPathComponent("certificates")
            let outcome = try Binary.runCommand("/bin/bash", [fixture("make-test-certificates.sh"), made.path])
            guard outcome.status == 0 else {
                throw ExampleServer.ServerError(message: "openssl could not make the test certificates: \(outcome.stderr)")
            }
            folder = made
            return made
        }
    }

    /// Starts `python3 Tests/Fixtures/SCRIPT PORTFILE [extra] [arguments]`
    /// and waits for the port it writes.
    private static func startScript(
        _ script: String, _ arguments: [String], extra: [String] = [],
        scheme: String = "http"
    ) throws -> String {
        let folder = try Binary.temporaryFolder()
        let portFile = folder.appendingPathComponent("port").path
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", fixture(script), portFile] + extra + arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: portFile, encoding: .utf8), let port = Int(text) {
                return "\(scheme)://127.0.0.1:\(port)"
            }
            guard process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.02)
        }
        throw ExampleServer.ServerError(message: "python3 \(script) did not start")
    }

    private static func canConnect(port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
