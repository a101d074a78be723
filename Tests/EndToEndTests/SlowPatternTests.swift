import Foundation
import Testing

/// A regular expression that backtracks for minutes (`'^(a+)+$'` on a
/// line of a's and a b) never freezes the run (issue 39, item 14): it is
/// checked off the event loop, so the other steps go on, and a step
/// `timeout`, `--timeout` and Ctrl-C end the run at once.
@Suite("End to end: a slow regular expression never freezes the run")
struct SlowPatternTests {
    /// About 2^28 backtracking steps: minutes, where the run ends in seconds.
    static let slowStep = #"slow: sh "printf aaaaaaaaaaaaaaaaaaaaaaaaaaab" { expect stdout matches '^(a+)+$' }"#

    @Test("a step timeout ends the step, and a step beside it goes on")
    func stepTimeout() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let (run, _) = try await space.run(
            """
            parallel {
              slow: sh "printf aaaaaaaaaaaaaaaaaaaaaaaaaaab" {
                expect stdout matches '^(a+)+$'
                timeout 1s
              }
              other: sh "sleep 0.3 && echo other-done"
            }
            """, killedAfter: 30)
        #expect(run.error(of: "slow")?["kind"] as? String == "timeout", "\(run.stdout)")
        #expect(run.step("other")?["status"] as? String == "succeeded", "\(run.statuses)")
    }

    @Test("--timeout ends the run (exit 124)")
    func runTimeout() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let (run, _) = try await space.run(Self.slowStep, ["--timeout", "1s"], killedAfter: 30)
        #expect(run.status == 124, "\(run.stdout)\(run.stderr)")
    }

    @Test("an HTTP step's capture by a slow pattern ends at the step's timeout too")
    func httpCapture() async throws {
        let server = try await TestServers.plain()
        let space = try Workspace()
        defer { space.remove() }
        let (run, _) = try await space.run(
            """
            slow: http GET "\(server)/large?bytes=28" {
              capture x = body matches '^(x+)+y$'
              timeout 1s
            }
            """, killedAfter: 30)
        #expect(run.error(of: "slow")?["kind"] as? String == "timeout", "\(run.stdout)")
    }

    @Test("SIGINT ends the run at once (exit 130)")
    func interrupt() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("test.workflow", Self.slowStep + "\n")
        let binary = try #require(Binary.url).path
        // `timeout` passes the SIGINT on and gives back the run's own exit
        // code, unless the run is still there 20 s on (137): judged by the
        // run's own clock, not by how busy the machine running the suite is.
        let outcome = try await Binary.runCommandOffPool(
            "/usr/bin/env",
            [
                "python3", TestServers.fixture("signal-after.py"), "1", "\(SIGINT)",
                "/usr/bin/timeout", "-s", "KILL", "20", binary, "--color", "never", space.path("test.workflow"),
            ])
        #expect(outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "130", "\(outcome.stdout)\(outcome.stderr)")
    }
}
