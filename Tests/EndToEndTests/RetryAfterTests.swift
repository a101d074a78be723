import Foundation
import Testing

/// `Retry-After` on 429 and 503: an http step with `retry`
/// waits what the server asks, instead of its `delay`, at most its timeout;
/// the report's attempt says so.
/// See docs/language.md, 'Load'.
@Suite("End to end: Retry-After")
struct RetryAfterTests {
    private func attempts(_ run: WorkflowRun, _ id: String) -> [[String: Any]] {
        run.step(id)?["attemptLog"] as? [[String: Any]] ?? []
    }

    @Test("seconds and an HTTP date are waited instead of the delay; the attempt log says how long")
    func honoured() async throws {
        let base = try await TestServers.plain()
        let space = try Workspace()
        defer { space.remove() }
        let key = UUID().uuidString
        let run = try await space.run(
            """
            workflow "polite"
            seconds: http GET "\(base)/retry-after?key=\(key)-s&after=1" {
              retry 2 delay 10ms
              capture waited = body matches '([0-9.]+)'
            }
            date: http GET "\(base)/retry-after?key=\(key)-d&after=1&date=1&status=503" {
              retry 2 delay 10ms
              capture waited = body matches '([0-9.]+)'
            }
            log "seconds={{seconds.waited}} date={{date.waited}}"
            """)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        for id in ["seconds", "date"] {
            let log = attempts(run, id)
            #expect(log.count == 2, "\(id): \(log)")
            #expect(log.first?["httpStatus"] as? Int == (id == "seconds" ? 429 : 503))
            // Seconds are exact; a date (whole seconds, 1 s past the
            // second after the answer) leaves a little less by the time
            // it is read.
            let asked = log.first?["retryAfterSeconds"] as? Double ?? 0
            #expect(id == "seconds" ? asked == 1 : asked > 0, "\(id) asked \(asked)")
        }
        // The server measured the gap: a second or more, not the 10 ms delay.
        let line = run.logLines(prefix: "seconds=").first ?? ""
        let gaps = line.split(separator: " ").compactMap { Double($0.split(separator: "=").last ?? "") }
        #expect(gaps.count == 2 && gaps.allSatisfy { $0 >= 0.9 }, "\(line)")
    }

    @Test("a wait longer than the step's timeout is cut to it; other statuses keep their delay")
    func cappedAndOnlyFor429And503() async throws {
        let base = try await TestServers.plain()
        let space = try Workspace()
        defer { space.remove() }
        let key = UUID().uuidString
        let run = try await space.run(
            """
            workflow "capped"
            capped: http GET "\(base)/retry-after?key=\(key)-c&after=3600" {
              timeout 1s
              retry 1 delay 10ms
            }
            other: http GET "\(base)/retry-after?key=\(key)-o&after=3600&status=500" {
              retry 1 delay 10ms
            }
            """)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(attempts(run, "capped").first?["retryAfterSeconds"] as? Double == 1)
        #expect(attempts(run, "other").first?["retryAfterSeconds"] == nil)
        #expect(attempts(run, "other").count == 2)
    }

    @Test("a Retry-After of years, or a date in 9999, waits at most 10 minutes, and the console says so as the wait starts")
    func absurdWaitsCapped() async throws {
        let base = try await TestServers.plain()
        let space = try Workspace()
        defer { space.remove() }
        let key = UUID().uuidString
        // No step timeout: only the workflow's 2 s ends the waits.
        let (run, _) = try await space.run(
            """
            workflow "patient"
            timeout 2s
            parallel {
              seconds: http GET "\(base)/retry-after?key=\(key)-s&value=99999999999999" { retry 1 }
              date: http GET "\(base)/retry-after?key=\(key)-d&status=503&value=Fri, 31 Dec 9999 23:59:59 GMT" { retry 1 }
            }
            """, killedAfter: 30)
        #expect(run.status != 137, "killed: \(run.stdout)\(run.stderr)")
        for id in ["seconds", "date"] {
            #expect(run.stdout.contains("↻ \(id): server asked to wait 10m (Retry-After capped)"), "\(run.stdout)")
        }
    }

    @Test("a Retry-After within the step's limits is waited as asked, and the console says how long")
    func waitShown() async throws {
        let base = try await TestServers.plain()
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(
            """
            workflow "polite"
            get: http GET "\(base)/retry-after?key=\(UUID().uuidString)&after=1" { retry 1 }
            """)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("↻ get: server asked to wait 1s (Retry-After)\n"), "\(run.stdout)")
    }
}
