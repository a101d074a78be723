import Foundation
import Testing

/// Iterations past the records their label keeps (its first 1,000 runs
/// with a report) are recorded as they end, and their one step runs
/// straight (`WorkflowExecutor.runLean`): the same failures, records,
/// statistics, thresholds and cancellation as the iterations before them,
/// against an HTTP server on 127.0.0.1.
/// See docs/language.md, 'Load', and docs/architecture.md.
@Suite("End to end: iterations past their label's kept records")
struct LeanIterationTests {
    /// `count` paths, each `/status/200` but the one at `failing`
    /// (`/status/500`), and from `slowFrom` on `/slow?ms=20000`.
    private func paths(count: Int, failing: Int, slowFrom: Int = .max) -> String {
        (0..<count).map { index in
            index == failing ? "/status/500\n" : index >= slowFrom ? "/slow?ms=20000\n" : "/status/200\n"
        }.joined()
    }

    @Test("a failure past the first 1,000 runs: its record names what it ran, the statistics and the threshold count it")
    func failurePastKeptRecords() async throws {
        let base = try await TestServers.plain()
        let space = try Workspace()
        defer { space.remove() }
        try space.write("paths.txt", paths(count: 1_100, failing: 1_050))
        let (run, _) = try await space.run(
            """
            workflow "lean"
            load: foreach path in lines("paths.txt") parallel limit 16 {
              expect failures < 1%
              expect failures of get <= 1
              get: http GET "\(base){{path}}"
            }
            """, killedAfter: 120)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let stats = try #require(run.stats("get"))
        #expect(stats["count"] as? Int == 1_100, "\(stats)")
        #expect(stats["failed"] as? Int == 1, "\(stats)")
        // Its record, made as it ended, says what it ran (the path from
        // its iteration's values) and why it failed.
        #expect(run.errorMessage(of: "get[1050]").contains("got 500"), "\(run.stdout)")
        let summary = run.step("get[1050]")?["summary"] as? String ?? ""
        #expect(summary.contains("/status/500"), "\(summary)")
        // The successes past the first 1,000 are counted, not listed.
        #expect(run.step("get[1049]") == nil)
        let thresholds = run.group("load")?["thresholds"] as? [[String: Any]] ?? []
        #expect(thresholds.count == 2 && thresholds.allSatisfy { $0["held"] as? Bool == true }, "\(thresholds)")
    }

    @Test("fail-fast past the first 1,000 runs cancels the steps in flight at once, and the others never start")
    func failFastPastKeptRecords() async throws {
        let base = try await TestServers.plain()
        let space = try Workspace()
        defer { space.remove() }
        // Around the failure at 1,050, slow requests: the ones in flight
        // must be cancelled, not waited for (20 s each).
        try space.write("paths.txt", paths(count: 1_200, failing: 1_050, slowFrom: 1_040))
        let (run, seconds) = try await space.run(
            """
            workflow "lean"
            load: foreach path in lines("paths.txt") parallel limit 16 {
              get: http GET "\(base){{path}}"
            }
            """, killedAfter: 120)
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.errorMessage(of: "get[1050]").contains("got 500"), "\(run.stdout)")
        #expect(seconds < 15, "the slow requests in flight were waited for: \(seconds) s")
        let cancelled = run.steps.filter { $0["status"] as? String == "cancelled" }
        #expect(!cancelled.isEmpty, "\(run.statuses.suffix(40))")
        #expect(cancelled.allSatisfy { ($0["summary"] as? String ?? "").contains("/slow?ms=20000") }, "\(cancelled)")
        // The iterations after them never started.
        #expect(run.stdout.contains("iterations not started"), "\(run.stdout)")
    }
}
