import Foundation
import Testing

/// Issue 19: no process outlives promise-run, whatever a step's processes
/// do. Tests/Fixtures/escapees.py runs the matrix (a `setsid` child, a
/// double fork into a new session, `nohup` with `disown`, a `setsid` child
/// that ignores SIGTERM; each under SIGTERM, SIGINT, a step timeout, a
/// group timeout, fail-fast, a lost race, the normal end and SIGKILL to the
/// runner; and 8 such steps in parallel) and looks for any process left.
/// `PROMISE_RUN_CONTAINMENT_REPEAT=5` (set by .ci/run for a second pass)
/// repeats the matrix.
@Suite("End to end: no process outlives the run")
struct ContainmentEndToEndTests {
    @Test func noEscapeeOutlivesTheRun() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let repeats = ProcessInfo.processInfo.environment["PROMISE_RUN_CONTAINMENT_REPEAT"] ?? "1"
        let binary = try #require(Binary.url).path
        let outcome = try await Binary.runCommandOffPool(
            "/usr/bin/env",
            [
                "python3", TestServers.fixture("escapees.py"), binary,
                space.folder.path, repeats, "6",
            ])
        let lines = outcome.stdout.split(separator: "\n").map(String.init)
        let problems = lines.filter { !$0.hasPrefix("done ") }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))\(outcome.stderr)")
        #expect(lines.last?.hasSuffix(" 0") == true, "\(lines.last ?? outcome.stderr)")
    }

    @Test("the end of the run warns about what a finished step left running, and ends it")
    func leftoversAreNamed() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let sleeper = try markedSleep(in: space.folder)
        let run = try await space.run(
            """
            server: sh "setsid \(sleeper) 300 &"
            quiet: sh "setsid \(sleeper) 301 &" {
              detach
            }
            """)
        #expect(run.status == 0)
        #expect(run.stderr.contains("warning: 'server' left '\(sleeper) 300'"), "\(run.stderr)")
        #expect(run.stderr.contains("it was ended with the run"))
        #expect(!run.stderr.contains("'quiet' left"), "a detached step's processes end without a warning")
        #expect(processes(containing: URL(fileURLWithPath: sleeper).lastPathComponent).isEmpty)
    }

    @Test("promise-run inside a step of another promise-run (a CI workflow running a build's own workflow) still contains its own steps' processes")
    func nestedRunsKeepTheirMarks() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let sleeper = try markedSleep(in: space.folder)
        let binary = try #require(Binary.url).path
        try space.write(
            "inner.workflow",
            """
            server: sh "setsid \(sleeper) 302 &"
            """)
        // A shell passes one value of a variable on: the inner run's mark
        // must not be lost to the outer's.
        let run = try await space.run(
            """
            outer: exec "\(binary)" "--color" "never" "inner.workflow"
            """)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("warning: 'server' left '\(sleeper) 302'"), "\(run.stdout)\(run.stderr)")
        #expect(!run.stderr.contains("'outer' left"), "the inner run ended its own leftovers: \(run.stderr)")
        #expect(processes(containing: URL(fileURLWithPath: sleeper).lastPathComponent).isEmpty)
    }
}
