import Foundation
import Testing

/// docs/steps.md: processes a step leaves running (`cmd &`, a `detach`
/// server) run on after the step ends, their later output dropped, and end
/// with the run. Their writes must never fail: a server's log line to a
/// closed pipe would kill it (SIGPIPE).
@Suite("End to end: processes left running by a step")
struct LeftBehindProcessTests {
    /// A port nothing listens on now.
    private func freePort() async throws -> Int {
        let outcome = try await Binary.runCommand(
            "/usr/bin/env",
            [
                "python3", "-c",
                """
                import socket
                s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()
                """,
            ])
        return try #require(Int(outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    /// Alive and not a zombie (this machine's init may not reap orphans).
    static func isAlive(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        let state = stat[stat.index(close, offsetBy: 2)...].prefix(1)
        return state != "Z" && state != "X"
    }

    @Test("a background writer keeps writing long after its step ended, and ends with the run")
    func writerLivesOn() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(
            """
            ticker: sh "(while true; do echo tick; echo tock >&2; date +%s%N >> ticks; sleep 0.1; done) & echo $! > ticker.pid"
            wait: sleep 1500ms
            alive: sh "kill -0 $(cat ticker.pid)"
            """)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.statuses == ["ticker succeeded", "wait succeeded", "alive succeeded"])
        let ticks = (space.read("ticks") ?? "").split(separator: "\n")
        // It ticks every 0.1 s and a fork or two: on a busy machine fewer
        // than 15 times, but over most of the 1.5 s the next step waited.
        let times = ticks.compactMap { Double($0) }.map { $0 / 1e9 }
        #expect(ticks.count >= 5, "it ticked \(ticks.count) times in 1.5 s")
        #expect((times.last ?? 0) - (times.first ?? 0) >= 1.0, "it ticked over \((times.last ?? 0) - (times.first ?? 0)) s of 1.5 s")
        // Ended with the run.
        let pid = try #require(Int32((space.read("ticker.pid") ?? "").trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(!Self.isAlive(pid), "the ticker outlived the run")
    }

    @Test("a detached server that logs to stderr answers the steps after it")
    func detachedServerAnswers() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("site/index.html", "hello from the site\n")
        let port = try await freePort()
        let run = try await space.run(
            """
            server: sh "python3 -m http.server \(port) --bind 127.0.0.1 --directory site &" {
              detach
            }
            pause: sleep 1s
            up: http GET "http://127.0.0.1:\(port)/" {
              retry 20 delay 100ms
              expect status 200
            }
            again: http GET "http://127.0.0.1:\(port)/index.html" {
              expect body contains "hello from the site"
            }
            """)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.statuses == ["server succeeded", "pause succeeded", "up succeeded", "again succeeded"])
    }
}
