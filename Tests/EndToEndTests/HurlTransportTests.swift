import Foundation
import Glibc
import Testing

/// Hurl's transport controls end to end: `unix-socket` (the tests'
/// server on a Unix socket, and nginx with HTTPS and HTTP/2 on one: that
/// test and the HTTP/2 ones are skipped, saying why, without nginx, and
/// fail in CI),
/// `resolve`, `connect-timeout` (a listener whose queue is full drops the
/// SYNs of further connects), `http-version` and `--http-version` (nginx
/// with HTTP/2 over TLS, and over plain HTTP without upgrade), over both
/// transports.
@Suite("End to end: transport controls")
struct HurlTransportTests {
    @Test("unix-socket over the HTTP/1.1 transport; a missing socket fails saying which")
    func unixSockets() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let socket = try await TestServers.unixSocket()
        let run = try await space.run(
            """
            workflow "unix"
            parallel keep-going {
              a: http GET "http://localhost/hello" {
                unix-socket "\(socket)"
                expect body == "hello"
                expect version == "1.1"
              }
              b: http POST "http://api.internal/mirror" {
                unix-socket "\(socket)"
                json '{"n": 1}'
                expect json ".n" == 1
              }
              c: http GET "http://localhost/hello" { unix-socket "\(space.path("none.sock"))" }
            }
            """)
        #expect(run.statuses == ["a succeeded", "b succeeded", "c failed"], "\(run.stdout)\(run.stderr)")
        #expect(
            run.errorMessage(of: "c")
                == "GET http://localhost/hello: could not connect to the Unix socket \(space.path("none.sock")) (No such file or directory)",
            "\(run.errorMessage(of: "c"))")
        #expect(run.error(of: "c")?["kind"] as? String == "network")
    }

    @Test(
        "unix-socket over libcurl: HTTPS and HTTP/2 (nginx on a Unix socket), HTTP/1.1 when asked; expecting the other version fails saying which came",
        .enabled(if: TestServers.nginxShouldRun, TestServers.nginxSkipReason))
    func unixSocketOverTLS() async throws {
        let nginx = try await TestServers.required(TestServers.nginxH2CAndUnix())
        let space = try Workspace()
        defer { space.remove() }
        let ca = nginx.certificates.appendingPathComponent("ca.pem").path
        let run = try await space.run(
            """
            workflow "unix"
            parallel keep-going {
              a: http GET "https://127.0.0.1/hello" {
                unix-socket "\(nginx.socket)"
                cacert "\(ca)"
                expect body == "hello"
                expect version == "2"
              }
              b: http GET "https://127.0.0.1/hello" {
                unix-socket "\(nginx.socket)"
                cacert "\(ca)"
                http-version 1.1
                expect body == "hello"
                expect version == "1.1"
              }
              c: http GET "https://127.0.0.1/hello" {
                unix-socket "\(nginx.socket)"
                cacert "\(ca)"
                expect version == "1.1"
              }
            }
            """)
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.statuses == ["a succeeded", "b succeeded", "c failed"], "\(run.stdout)\(run.stderr)")
        #expect(run.errorMessage(of: "c") == #"expected version == "1.1", got "2""#)
    }

    @Test("resolve: a name no DNS knows reaches the server, over HTTP/1.1 and HTTPS (the certificate checked for the name)")
    func resolve() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let plain = try await TestServers.plain()
        let tls = try await TestServers.tls()
        let plainPort = URL(string: plain)!.port!
        let tlsPort = URL(string: tls.url)!.port!
        let run = try await space.run(
            """
            workflow "resolve"
            parallel keep-going {
              a: http GET "http://api.promise-run.test:\(plainPort)/hello" {
                resolve "api.promise-run.test:\(plainPort):127.0.0.1"
                expect body == "hello"
              }
              b: http GET "https://api.promise-run.test:\(tlsPort)/hello" {
                resolve "api.promise-run.test:\(tlsPort):127.0.0.1"
                cacert "\(tls.file("ca.pem"))"
                expect body == "hello"
                expect url == "https://api.promise-run.test:\(tlsPort)/hello"
              }
              c: http GET "http://api.promise-run.test:\(plainPort)/hello" {
                resolve "other.promise-run.test:\(plainPort):127.0.0.1"
              }
            }
            """)
        #expect(run.statuses == ["a succeeded", "b succeeded", "c failed"], "\(run.stdout)\(run.stderr)")
        #expect(run.errorMessage(of: "c").contains("could not find the host 'api.promise-run.test'"), "\(run.errorMessage(of: "c"))")
    }

    /// A listener on 127.0.0.1 whose accept queue is full: the kernel drops
    /// the SYN of any further connect, which then waits. Returns its port
    /// and the descriptors to close.
    private func blackHole() throws -> (port: Int, descriptors: [Int32]) {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
                bind(listener, pointer, length) == 0 && listen(listener, 0) == 0 && getsockname(listener, pointer, &length) == 0
            }
        }
        try #require(bound)
        let port = Int(UInt16(bigEndian: address.sin_port))
        var descriptors = [listener]
        // Fill the queue: the first connections complete, later SYNs are dropped.
        for _ in 0..<3 {
            let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            descriptors.append(client)
        }
        Thread.sleep(forTimeInterval: 0.2)
        return (port, descriptors)
    }

    @Test("connect-timeout: a connect that outlasts it fails the step with kind timeout, over both transports; a server that answers is not hurried")
    func connectTimeout() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let hole = try blackHole()
        defer { for descriptor in hole.descriptors { close(descriptor) } }
        let plain = try await TestServers.plain()
        let tls = try await TestServers.tls()
        let run = try await space.run(
            """
            workflow "connect"
            parallel keep-going {
              a: http GET "http://127.0.0.1:\(hole.port)/" { connect-timeout 300ms }
              b: http GET "https://127.0.0.1:\(hole.port)/" { connect-timeout 300ms }
              c: http GET "\(plain)/slow?ms=500" { connect-timeout 200ms }
              d: http GET "\(tls.url)/hello" {
                connect-timeout 2s
                cacert "\(tls.file("ca.pem"))"
              }
            }
            """)
        #expect(run.statuses == ["a failed", "b failed", "c succeeded", "d succeeded"], "\(run.stdout)\(run.stderr)")
        #expect(
            run.errorMessage(of: "a")
                == "GET http://127.0.0.1:\(hole.port)/: could not connect to 127.0.0.1:\(hole.port) within 300ms (connect-timeout)")
        #expect(
            run.errorMessage(of: "b")
                == "GET https://127.0.0.1:\(hole.port)/: could not connect to 127.0.0.1:\(hole.port) within 300ms (connect-timeout)")
        #expect(run.error(of: "a")?["kind"] as? String == "timeout")
        #expect(run.error(of: "b")?["kind"] as? String == "timeout")
    }

    @Test(
        "http-version and --http-version: HTTP/2 over TLS by default, 1.1 when asked, HTTP/2 over plain HTTP when asked; the step's wins",
        .enabled(if: TestServers.nginxShouldRun, TestServers.nginxSkipReason))
    func httpVersions() async throws {
        let h2 = try await TestServers.required(TestServers.nginxHTTP2())
        let h2c = try await TestServers.required(TestServers.nginxH2CAndUnix())
        let space = try Workspace()
        defer { space.remove() }
        let plain = try await TestServers.plain()
        let workflow = """
            workflow "versions"
            parallel keep-going {
              default: http GET "\(h2.url)/hello" { cacert "\(h2.file("ca.pem"))" }
              one: http GET "\(h2.url)/hello" {
                cacert "\(h2.file("ca.pem"))"
                http-version 1.1
                expect version == "1.1"
              }
              two: http GET "\(h2.url)/hello" {
                cacert "\(h2.file("ca.pem"))"
                http-version 2
                expect version == "2"
              }
              cleartext: http GET "\(h2c.url)/hello" {
                http-version 2
                expect version == "2"
                expect body == "hello"
              }
              plain: http GET "\(plain)/hello" { expect version == "1.1" }
            }
            log "=default {{default.version}}"
            """
        let run = try await space.run(workflow)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.logLines(prefix: "=") == ["=default 2"], "\(run.stdout)")
        let forced = try await space.run(workflow, ["--http-version", "1.1"])
        #expect(forced.status == 0, "\(forced.stdout)\(forced.stderr)")
        #expect(forced.logLines(prefix: "=") == ["=default 1.1"], "\(forced.stdout)")
        let asked = try await space.run(
            """
            workflow "asked"
            one: http GET "\(h2.url)/hello" {
              cacert "\(h2.file("ca.pem"))"
              http-version 1.1
              expect version == "2"
            }
            """)
        #expect(asked.status == 1, "\(asked.stdout)\(asked.stderr)")
        #expect(asked.errorMessage(of: "one") == #"expected version == "2", got "1.1""#, "\(asked.stdout)")
        let wrong = try await Binary.run(["--http-version", "3", "x.workflow"], in: space.folder)
        #expect(wrong.status == 2)
        #expect(wrong.stderr.contains("--http-version takes 1.1 or 2, not '3'"), "\(wrong.stderr)")
    }

    @Test("the version that came is asserted: HTTP/1.1 asked of (or all) a server speaks; expecting 2 fails saying 1.1 came, over both transports")
    func versionThatCame() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let plain = try await TestServers.plain()
        let tls = try await TestServers.tls()
        let run = try await space.run(
            """
            workflow "versions"
            parallel keep-going {
              a: http GET "\(plain)/hello" {
                http-version 1.1
                expect version == "1.1"
                expect version != "2"
              }
              b: http GET "\(plain)/hello" {
                http-version 1.1
                expect version == "2"
              }
              c: http GET "\(tls.url)/hello" {
                cacert "\(tls.file("ca.pem"))"
                http-version 1.1
                expect version == "2"
              }
              d: http GET "\(tls.url)/hello" {
                cacert "\(tls.file("ca.pem"))"
                expect version startsWith "2"
              }
            }
            """)
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.statuses == ["a succeeded", "b failed", "c failed", "d failed"], "\(run.stdout)\(run.stderr)")
        #expect(run.errorMessage(of: "b") == #"expected version == "2", got "1.1""#)
        #expect(run.errorMessage(of: "c") == #"expected version == "2", got "1.1""#)
        #expect(run.errorMessage(of: "d") == #"expected version to start with "2", got "1.1""#)
    }

    @Test("check refuses a malformed resolve, an unknown HTTP version, a zero connect-timeout, and these on steps that are not http; fmt keeps them")
    func checkAndFormat() async throws {
        try await Workspace.expectCheckRefuses(
            """
            workflow "bad"
            a: http GET "http://127.0.0.1:1/" { resolve "api.test:443" }
            b: http GET "http://127.0.0.1:1/" { resolve "api.test:http:127.0.0.1" }
            c: http GET "http://127.0.0.1:1/" { resolve "api.test:443:localhost" }
            d: http GET "http://127.0.0.1:1/" { http-version 3 }
            e: http GET "http://127.0.0.1:1/" { connect-timeout 0s }
            f: sh "true" { unix-socket "/tmp/a.sock" }
            """,
            with: [
                "bad.workflow:2:45: error: invalid resolve 'api.test:443': it needs three parts, HOST:PORT:ADDRESS",
                "bad.workflow:3:45: error: invalid resolve 'api.test:http:127.0.0.1': the port 'http' is not a number from 1 to 65535",
                "bad.workflow:4:45: error: invalid resolve 'api.test:443:localhost': 'localhost' is not an IP address",
                "bad.workflow:5:50: error: expected an HTTP version after 'http-version' (1.1 or 2), found '3'",
                "bad.workflow:6:37: error: a connect timeout above zero, as in connect-timeout 2s",
                "bad.workflow:7:16: error: attribute 'unix-socket' does not apply to sh steps; it is for http steps",
            ])
        let text = """
            workflow "t"
            a: http GET "https://api.example.com/x" {
              cacert "ca.pem"
              connect-timeout 2s
              resolve "api.example.com:443:127.0.0.1"
              resolve "api.example.com:80:[::1]"
              unix-socket "/run/app.sock"
              http-version 2
              expect version == "2"
            }

            """
        let space = try Workspace()
        defer { space.remove() }
        let formatted = try await Binary.run(
            ["fmt", "-"],
            stdin: text.replacingOccurrences(of: "  http-version 2\n", with: "")
                .replacingOccurrences(of: "  cacert \"ca.pem\"\n", with: "  http-version 2\n  cacert \"ca.pem\"\n"),
            in: space.folder)
        #expect(formatted.stdout == text, "\(formatted.stdout)\(formatted.stderr)")
    }
}
