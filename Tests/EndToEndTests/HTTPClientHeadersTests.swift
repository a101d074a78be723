import Foundation
import Testing

/// docs/steps.md: the headers the client sets itself (`Host`,
/// `User-Agent`, `Accept`, `Accept-Encoding`, `Connection`) give way to the
/// step's own, as curl and Hurl do; an empty value removes them; a step's
/// `Host` goes to its own origin only. Over plain HTTP (the runner's own
/// transport) and HTTPS (libcurl), against the tests' echo server.
@Suite("End to end: the step's headers win over the client's")
struct HTTPClientHeadersTests {
    /// The headers the echo server received, as its JSON says.
    private func received(_ run: WorkflowRun, _ prefix: String) throws -> [String: String] {
        let line = try #require(run.logLines(prefix: prefix).first, "\(run.stdout)\(run.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(line.dropFirst(prefix.count).utf8))
        return try #require(json as? [String: String])
    }

    /// The tests' server for `scheme` ("http" or "https"), and the line a
    /// step needs to trust it (`cacert`, over HTTPS; empty over HTTP).
    private func server(_ scheme: String) async throws -> (base: String, cacert: String) {
        if scheme == "http" { return (try await TestServers.plain(), "") }
        let tls = try await TestServers.tls()
        return (tls.url, "cacert \"\(tls.file("ca.pem"))\"")
    }

    @Test("Host, User-Agent, Accept, Accept-Encoding and Connection as the step sets them", arguments: ["http", "https"])
    func stepValuesWin(scheme: String) async throws {
        let space = try Workspace()
        defer { space.remove() }
        let (base, cacert) = try await server(scheme)
        let run = try await space.run(
            """
            set: http GET "\(base)/echo" {
              \(cacert)
              header "Host" "www.example.com"
              header "User-Agent" "my-agent/2"
              header "Accept" "text/plain"
              header "Accept-Encoding" "identity"
              header "Connection" "close"
            }
            again: http GET "\(base)/echo" {
              \(cacert)
            }
            removed: http GET "\(base)/echo" {
              \(cacert)
              header "User-Agent" ""
              header "Accept" ""
              header "Accept-Encoding" ""
            }
            log "=set {{set.json.headers}}"
            log "=again {{again.json.headers}}"
            log "=removed {{removed.json.headers}}"
            """)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let set = try received(run, "=set ")
        #expect(set["host"] == "www.example.com")
        #expect(set["user-agent"] == "my-agent/2")
        #expect(set["accept"] == "text/plain")
        #expect(set["accept-encoding"] == "identity")
        #expect(set["connection"] == "close")
        let again = try received(run, "=again ")
        let authority = try #require(URL(string: base)).host! + ":" + String(try #require(URL(string: base)?.port))
        #expect(again["host"] == authority)
        #expect(again["user-agent"]?.hasPrefix("promise-run/") == true)
        #expect(again["accept"] == "*/*")
        let removed = try received(run, "=removed ")
        #expect(removed["user-agent"] == nil, "\(removed)")
        #expect(removed["accept"] == nil, "\(removed)")
        #expect(removed["accept-encoding"] == nil, "\(removed)")
        #expect(removed["host"] == authority)
    }

    @Test("a Content-Type the step sets is sent on a request without a body, as every header it sets", arguments: ["http", "https"])
    func contentTypeWithoutABody(scheme: String) async throws {
        let space = try Workspace()
        defer { space.remove() }
        let (base, cacert) = try await server(scheme)
        let run = try await space.run(
            """
            patch: http PATCH "\(base)/echo" {
              \(cacert)
              header "Content-Type" "application/example"
              header "If-Match" "\\"v1\\""
            }
            get: http GET "\(base)/echo" {
              \(cacert)
              header "Content-Type" "application/json"
            }
            log "=patch {{patch.json.headers}}"
            log "=get {{get.json.headers}}"
            """)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let patch = try received(run, "=patch ")
        #expect(patch["content-type"] == "application/example", "\(patch)")
        #expect(patch["if-match"] == "\"v1\"", "\(patch)")
        #expect(try received(run, "=get ")["content-type"] == "application/json")
    }

    @Test("a step's Host is not sent on a redirect to another origin")
    func hostStaysWithItsOrigin() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let base = try await TestServers.plain()
        let port = try #require(URL(string: base)?.port)
        let run = try await space.run(
            """
            same: http GET "\(base)/redirect-to?location=/echo" {
              header "Host" "www.example.com"
            }
            other: http GET "\(base)/redirect-to?location=http://localhost:\(port)/echo" {
              header "Host" "www.example.com"
            }
            log "=same {{same.json.headers}}"
            log "=other {{other.json.headers}}"
            """)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(try received(run, "=same ")["host"] == "www.example.com")
        #expect(try received(run, "=other ")["host"] == "localhost:\(port)")
    }
}
