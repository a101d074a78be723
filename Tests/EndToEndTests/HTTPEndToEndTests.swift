import Foundation
import Testing

/// The HTTP transport (docs/steps.md, 'HTTP'): the real binary on workflow
/// files against real servers on 127.0.0.1 (the tests' Python server over
/// HTTP and HTTPS, a forward proxy, nginx with HTTP/2).
@Suite("End to end: HTTP transport")
struct HTTPEndToEndTests {
    /// Runs `workflow` with `base` set to the plain server's URL.
    private func run(
        _ workflow: String, _ arguments: [String] = [], environment: [String: String] = [:],
        in space: Workspace
    ) async throws -> WorkflowRun {
        let base = try await TestServers.plain()
        return try await space.run("workflow \"http\"\nvar base = \"\(base)\"\n" + workflow, arguments, environment: environment)
    }

    private func lines(_ run: WorkflowRun) -> [String] {
        run.logLines(prefix: "=")
    }

    @Test("the URL is sent as written: %XX kept, only what cannot stand in a request line encoded")
    func urlSentAsWritten() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await run(
            """
            e: http GET "{{base}}/echo?p={bar}&q=a%3db&r=x y|z"
            log "={{e.json.path}}"
            """, in: space)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(lines(run) == ["=/echo?p=%7Bbar%7D&q=a%3db&r=x%20y%7Cz"])
    }

    @Test("a relative Location resolves as RFC 3986 says; url and redirects say where it ended")
    func relativeRedirect() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await run(
            """
            r: http GET "{{base}}/follow-redirect/relative/foo"
            log "={{r.body}} {{r.url}} {{r.redirects}} {{r.version}}"
            """, in: space)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let base = try await TestServers.plain()
        #expect(lines(run) == ["=bar \(base)/follow-redirect/bar 1 1.1"])
    }

    @Test(
        "307 and 308 keep the method and the body; 301, 302 and 303 turn POST into GET without a body",
        arguments: [(301, "GET", 0), (302, "GET", 0), (303, "GET", 0), (307, "POST", 12), (308, "POST", 12)])
    func redirectMethods(_ status: Int, _ method: String, _ length: Int) async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await run(
            """
            r: http POST "{{base}}/redirect-to?status=\(status)&location=/echo" {
              form name "Ada"
              form x "y"
            }
            log "={{r.json.method}} {{r.json.body_length}} {{r.redirects}}"
            """, in: space)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(lines(run) == ["=\(method) \(length) 1"])
    }

    @Test("Authorization and Cookie the step set go on to the same origin, never to another")
    func credentialsStayWithTheirOrigin() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let base = try await TestServers.plain()
        let port = try #require(URL(string: base)?.port)
        let run = try await run(
            """
            same: http GET "{{base}}/redirect-to?location=/echo" {
              header Authorization "Bearer secret-token"
              header Cookie "session=s1"
              header X-Other "kept"
            }
            other: http GET "{{base}}/redirect-to?location=http://localhost:\(port)/echo" {
              header Authorization "Bearer secret-token"
              header Cookie "session=s1"
              header X-Other "kept"
            }
            log "=same {{same.json.headers}}"
            log "=other {{other.json.headers}}"
            """, in: space)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let printed = lines(run)
        let same = try #require(printed.first)
        #expect(same.contains("\"authorization\":\"Bearer secret-token\""), "\(same)")
        #expect(same.contains("\"cookie\":\"session=s1\""), "\(same)")
        let other = try #require(printed.last)
        #expect(other.contains("\"x-other\":\"kept\""), "\(other)")
        #expect(other.contains("\"host\":\"localhost:\(port)\""), "\(other)")
        #expect(!other.contains("secret-token"), "\(other)")
        #expect(!other.contains("session=s1"), "\(other)")
        #expect(!other.contains("authorization"), "\(other)")
    }

    @Test("a redirect to file:, gopher:, dict:, ftp: or no URL at all fails the step, over HTTP and HTTPS; redirects 0 keeps it")
    func redirectsOnlyToHTTP() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let tls = try await TestServers.tls()
        let targets = [
            "file:///etc/passwd", "gopher://127.0.0.1:70/1x", "dict://127.0.0.1:2628/d:x", "ftp://127.0.0.1/x",
            "http://[::1", "https://",
        ]
        var workflow = ""
        for (index, target) in targets.enumerated() {
            let location = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? target
            workflow += "plain\(index): http GET \"{{base}}/redirect-to?location=\(location)\" { allow-failure }\n"
            workflow += "tls\(index): http GET \"\(tls.url)/redirect-to?location=\(location)\" { insecure; allow-failure }\n"
        }
        workflow += "asked: http GET \"{{base}}/redirect-to?location=file%3A%2F%2F%2Fetc%2Fpasswd\" { redirects 0; expect status 302 }\n"
        let run = try await run(workflow, in: space)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        for (index, target) in targets.enumerated() {
            for id in ["plain\(index)", "tls\(index)"] {
                let error = run.error(of: id)
                #expect(run.step(id)?["status"] as? String == "failed", "\(id) to \(target): \(run.step(id) ?? [:])")
                #expect(error?["kind"] as? String == "network", "\(id): \(error ?? [:])")
                #expect(
                    (error?["message"] as? String)?.contains(
                        "the server redirected (302) to '\(target)', which is not an http:// "
                            + "or https:// URL") == true, "\(id): \(error ?? [:])")
                #expect(run.step(id)?["httpStatus"] as? Int == 302, "\(id): \(run.step(id) ?? [:])")
            }
        }
        #expect(run.step("asked")?["status"] as? String == "succeeded")
    }

    @Test("redirects N is honoured exactly up to 100; one more fails with kind network")
    func manyRedirects() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await run(
            """
            thirty: http GET "{{base}}/redirect/30" { redirects 30 }
            hundred: http GET "{{base}}/redirect/100" { redirects 100 }
            log "={{thirty.body}} {{thirty.redirects}} {{hundred.body}} {{hundred.redirects}}"
            short: http GET "{{base}}/redirect/101" { redirects 100 }
            """, in: space)
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        #expect(lines(run) == ["=arrived 30 arrived 100"])
        let error = try #require(run.step("short")?["error"] as? [String: Any])
        #expect(error["kind"] as? String == "network")
        #expect((error["message"] as? String)?.contains("too many redirects: stopped after 100") == true, "\(error)")
    }

    @Test("one cookie store for the run, shared by parallel steps; cookies off turns it off for a block")
    func cookies() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await run(
            """
            parallel {
              a: http GET "{{base}}/cookies/set?a=1"
              b: http GET "{{base}}/cookies/set?b=2"
            }
            c: http GET "{{base}}/cookies" { header Cookie "mine=0" }
            log "={{c.json.cookie}} {{c.cookie.a}} {{b.cookie.b}}"
            sequence {
              cookies off
              d: http GET "{{base}}/cookies"
              log "=off {{d.json.cookie}}"
            }
            e: http GET "{{base}}/cookies/set?a=3"
            f: http GET "{{base}}/cookies"
            log "={{f.json.cookie}}"
            """, in: space)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let printed = lines(run)
        #expect(printed.count == 3)
        let first = try #require(printed.first)
        #expect(first.hasPrefix("=mine=0; "), "\(first)")
        #expect(first.contains("a=1") && first.contains("b=2"), "\(first)")
        #expect(first.hasSuffix(" 1 2"), "\(first)")
        #expect(printed.dropFirst().first == "=off null")
        #expect(printed.last?.contains("a=3") == true && printed.last?.contains("a=1") == false)
    }

    @Test("timings: every phase present and ordered, in the fields and the JSON report")
    func timings() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await run(
            """
            t: http GET "{{base}}/slow?ms=50"
            log "={{t.timing.dns}} {{t.timing.connect}} {{t.timing.tls}} {{t.timing.firstByte}} {{t.timing.total}}"
            """, in: space)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let values = try #require(lines(run).first).dropFirst().split(separator: " ").compactMap { Double($0) }
        #expect(values.count == 5)
        #expect(values == values.sorted(), "\(values)")
        #expect(values[3] >= 0.05 && values[4] >= values[3])
        let step = try #require(run.step("t"))
        let timings = try #require(step["timings"] as? [String: Double])
        let order = ["dns", "connect", "tls", "firstByte", "total"].compactMap { timings[$0] }
        #expect(order.count == 5 && order == order.sorted(), "\(timings)")
        #expect(step["version"] as? String == "1.1")
        #expect(step["redirects"] as? Int == 0)
        #expect((step["url"] as? String)?.hasSuffix("/slow?ms=50") == true)
    }

    @Test("the body is decoded by its charset; gzip, deflate, br and zstd bodies are decoded")
    func bodies() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await run(
            """
            latin: http GET "{{base}}/latin1" { expect body contains "café" }
            gzip: http GET "{{base}}/encoded/gzip" { expect body contains "hello, compressed world! hello" }
            deflate: http GET "{{base}}/encoded/deflate" { expect body contains "hello, compressed world! hello" }
            br: http GET "{{base}}/encoded/br" { expect body contains "hello, compressed world! hello" }
            zstd: http GET "{{base}}/encoded/zstd" { expect body contains "hello, compressed world! hello" }
            log "={{latin.body}}"
            """, in: space)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(lines(run) == ["=café"])
    }

    @Test("HTTPS verifies the server; insecure, cacert, --insecure and --cacert say whom to trust")
    func https() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let tls = try await TestServers.tls()
        let untrusted = try await space.run(
            """
            t: http GET "\(tls.url)/hello"
            """)
        #expect(untrusted.status == 1)
        let error = try #require(untrusted.step("t")?["error"] as? [String: Any])
        #expect(error["kind"] as? String == "network")
        #expect((error["message"] as? String)?.contains("certificate") == true, "\(error)")

        let trusted = try await space.run(
            """
            a: http GET "\(tls.url)/hello" { insecure }
            b: http GET "\(tls.url)/hello" { cacert "\(tls.file("ca.pem"))" }
            log "={{a.body}} {{b.body}} {{b.version}}"
            """)
        #expect(trusted.status == 0, "\(trusted.stdout)\(trusted.stderr)")
        #expect(trusted.logLines(prefix: "=") == ["=hello hello 1.1"])

        let options = try await space.run(
            """
            a: http GET "\(tls.url)/hello"
            """, ["--insecure"])
        #expect(options.status == 0, "\(options.stderr)")
        try FileManager.default.copyItem(atPath: tls.file("ca.pem"), toPath: space.path("authority.pem"))
        let cacert = try await space.run(
            """
            a: http GET "\(tls.url)/hello"
            """, ["--cacert", "authority.pem"])
        #expect(cacert.status == 0, "\(cacert.stderr)")
    }

    @Test("a client certificate, with cert and key")
    func clientCertificate() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let tls = try await TestServers.mutualTLS()
        let refused = try await space.run(
            """
            t: http GET "\(tls.url)/hello" { cacert "\(tls.file("ca.pem"))" }
            """)
        #expect(refused.status == 1)
        #expect(refused.step("t")?["status"] as? String == "failed")
        let accepted = try await space.run(
            """
            t: http GET "\(tls.url)/hello" {
              cacert "\(tls.file("ca.pem"))"
              cert "\(tls.file("client.pem"))"
              key "\(tls.file("client-key.pem"))"
            }
            log "={{t.body}}"
            """)
        #expect(accepted.status == 0, "\(accepted.stdout)\(accepted.stderr)")
        #expect(accepted.logLines(prefix: "=") == ["=hello"])
    }

    @Test("HTTP/2 over TLS when the server offers it (nginx)", .enabled(if: TestServers.nginxShouldRun, TestServers.nginxSkipReason))
    func http2() async throws {
        let nginx = try await TestServers.required(TestServers.nginxHTTP2())
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(
            """
            parallel {
              a: http GET "\(nginx.url)/hello" { cacert "\(nginx.file("ca.pem"))" }
              b: http GET "\(nginx.url)/hello" { cacert "\(nginx.file("ca.pem"))" }
            }
            log "={{a.version}} {{a.body}} {{b.version}}"
            """)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.logLines(prefix: "=") == ["=2 hello 2"])
        #expect(run.step("a")?["version"] as? String == "2")
    }

    @Test("proxies come from http_proxy and https_proxy; no_proxy goes direct")
    func proxies() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let proxy = try await TestServers.proxy("proxies")
        let tls = try await TestServers.tls()
        let base = try await TestServers.plain()
        let before = proxy.requests.count
        let through = try await run(
            """
            p: http GET "{{base}}/echo?through=proxy"
            s: http GET "\(tls.url)/hello" { insecure }
            log "={{p.json.headers.via}} {{s.body}}"
            """, environment: ["http_proxy": proxy.url, "https_proxy": proxy.url, "no_proxy": ""], in: space)
        #expect(through.status == 0, "\(through.stdout)\(through.stderr)")
        #expect(through.logLines(prefix: "=") == ["=1.1 test-proxy hello"])
        let seen = proxy.requests.dropFirst(before)
        #expect(seen.contains("GET \(base)/echo?through=proxy"), "\(seen)")
        #expect(seen.contains { $0.hasPrefix("CONNECT 127.0.0.1:") }, "\(seen)")

        let count = proxy.requests.count
        let direct = try await run(
            """
            p: http GET "{{base}}/echo?direct=1"
            """, environment: ["http_proxy": proxy.url, "no_proxy": "localhost,127.0.0.1"], in: space)
        #expect(direct.status == 0)
        #expect(proxy.requests.count == count)
    }

    @Test("--dry-run and graph show the TLS attributes and cookies off")
    func rendering() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write(
            "test.workflow",
            """
            workflow "shown"
            cookies off
            t: http GET "https://127.0.0.1:1/x" {
              insecure
              cacert "ca.pem"
              cert "client.pem"
              key "client-key.pem"
            }
            """)
        let dry = try await Binary.run(["--dry-run", "--insecure", "test.workflow"], in: space.folder)
        #expect(dry.status == 0, "\(dry.stderr)")
        for text in ["insecure", "cookies off", "cacert \"ca.pem\"", "cert \"client.pem\"", "key \"client-key.pem\""] {
            #expect(dry.stdout.contains(text), "\(text) in \(dry.stdout)")
        }
        let json = try await Binary.run(["graph", "--format", "json", "test.workflow"], in: space.folder)
        #expect(json.stdout.contains("\"insecure\": true") || json.stdout.contains("\"insecure\":true"), "\(json.stdout)")
        #expect(json.stdout.contains("\"cookies\": false") || json.stdout.contains("\"cookies\":false"), "\(json.stdout)")
    }

    @Test("cancelling 1,000 requests in flight leaves no socket open")
    func cancellingAThousandRequests() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let sockets = "ls -l /proc/$PPID/fd | grep -c socket || true"
        let run = try await run(
            """
            before: sh "\(sockets)"
            log "=before {{before.stdout}}"
            sequence {
              timeout 6s
              parallel {
                foreach i in range(1, 1000) parallel {
                  http GET "{{base}}/hold?i={{i}}"
                }
                sequence {
                  # Until the 1,000 are open (or 5 s have passed).
                  during: sh "i=0; while [ $(\(sockets)) -lt $(({{before.stdout}} + 1000)) ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done; \(sockets)"
                  log "=during {{during.stdout}}"
                }
              }
            }
            catch {
              log "=caught {{error.kind}}"
            }
            after: sh "\(sockets)"
            log "=after {{after.stdout}}"
            """, ["--http-connections", "1000"], in: space)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        // Sockets the runner had before any request (one may be inherited
        // from the test process) are the baseline.
        let printed = lines(run)
        guard printed.count == 4 else {
            Issue.record("\(printed)")
            return
        }
        #expect(printed.count == 4, "\(printed)")
        let count = { (index: Int) in Int(printed[index].split(separator: " ").last ?? "") ?? -1 }
        let before = count(0)
        #expect(before >= 0)
        #expect(count(1) == before + 1000, "\(printed)")
        #expect(printed.dropFirst(2).first == "=caught timeout")
        #expect(count(3) == before, "\(printed)")
    }
}
