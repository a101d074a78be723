import Foundation
import Testing

/// Thresholds: `expect latency|failures|rate ...` in a group's
/// block, checked when the group ends against an HTTP server on 127.0.0.1;
/// one that does not hold fails the group with kind `expect` and the
/// measured value; JUnit has a test case per threshold.
/// See docs/language.md, 'Load'.
@Suite("End to end: thresholds")
struct ThresholdTests {
    /// The `thresholds` of the group `id` in the JSON report.
    private func thresholds(_ run: WorkflowRun, group id: String) -> [[String: Any]] {
        run.group(id)?["thresholds"] as? [[String: Any]] ?? []
    }

    @Test("thresholds that hold: exit 0, each reported as held with its measured value, a passing JUnit test case named as written")
    func holding() async throws {
        let base = try await TestServers.plain()
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(
            """
            workflow "load"
            load: repeat 40 parallel limit 4 rate 200/s {
              expect latency p99 < 5s
              expect latency of hit p50 <= 5s
              expect failures < 1%
              expect rate >= 10/s
              hit: http GET "\(base)/hello" { expect status 200 }
            }
            """, ["--report", "junit=junit.xml"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let checked = thresholds(run, group: "load")
        #expect(checked.map { $0["threshold"] as? String } == ["latency p99 < 5s", "latency of hit p50 <= 5s", "failures < 1%", "rate >= 10/s"])
        #expect(checked.allSatisfy { $0["held"] as? Bool == true }, "\(checked)")
        let p99 = try #require(checked.first?["measured"] as? Double)
        #expect(p99 > 0 && p99 < 5)
        #expect(run.stdout.contains("✓ load: latency p99 < 5s  (p99 was "), "\(run.stdout)")
        let junit = try JUnitShape.read(space)
        let cases = junit.cases.filter { $0.name.hasPrefix("latency") || $0.name.hasPrefix("failures") || $0.name.hasPrefix("rate") }
        #expect(cases.map(\.name) == ["latency p99 < 5s", "latency of hit p50 <= 5s", "failures < 1%", "rate >= 10/s"])
        #expect(cases.allSatisfy { $0.outcome == nil }, "\(cases)")
    }

    @Test("a latency threshold that does not hold fails the group with kind expect, the measured value beside the bound; JUnit fails its case")
    func failing() async throws {
        let base = try await TestServers.plain()
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(
            """
            workflow "slow"
            load: repeat 6 parallel limit 3 {
              expect latency p50 < 10ms
              slow: http GET "\(base)/slow?ms=60"
            }
            after: log "after"
            """, ["--report", "junit=junit.xml", "--report", "markdown=summary.md"])
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        let error = try #require(run.group("load")?["error"] as? [String: Any])
        #expect(error["kind"] as? String == "expect")
        let message = try #require(error["message"] as? String)
        #expect(message.hasPrefix("threshold latency p50 < 10ms failed: p50 was "), "\(message)")
        #expect(run.step("after")?["status"] as? String == "skipped")
        #expect(run.stdout.contains("load (expect): threshold latency p50 < 10ms failed"), "\(run.stdout)")
        let junit = try JUnitShape.read(space)
        let threshold = try #require(junit.cases.first { $0.name == "latency p50 < 10ms" })
        #expect(threshold.outcome == "failure")
        #expect(threshold.failureType == "expect")
        // The group's failure is its threshold's: one failed case, not two.
        #expect(!junit.cases.contains { $0.name == "load" })
        #expect(space.read("summary.md")?.contains("| `load` | `latency p50 < 10ms` | ❌ failed | p50 was ") == true)
    }

    @Test("expect failures: the group runs as with keep-going and the threshold decides; within it exit 0, past it exit 1")
    func failuresDecide() async throws {
        let space = try Workspace()
        defer { space.remove() }
        // Iterations 0 and 1 fail: two failures of 20.
        let body = { (bound: String) in
            """
            workflow "failures"
            load: repeat 20 parallel limit 2 {
              expect failures \(bound)
              hit: sh "test {{repeat.index}} -ge 2"
            }
            done: log "went on"
            """
        }
        let within = try await space.run(body("<= 3"), ["--report", "junit=junit.xml"])
        #expect(within.status == 0, "\(within.stdout)\(within.stderr)")
        // Every iteration ran (no fail-fast), the failures are counted.
        let stats = try #require(within.stats("hit"))
        #expect(stats["count"] as? Int == 20)
        #expect(stats["failed"] as? Int == 2)
        #expect(within.step("done")?["status"] as? String == "succeeded")
        #expect((within.step("hit[0]")?["handledBy"] as? String)?.contains("thresholds of 'load'") == true)
        #expect(thresholds(within, group: "load").first?["measured"] as? Double == 2)
        let junit = try JUnitShape.read(space)
        // One test case for the label's 20 runs; its handled
        // failures pass.
        #expect(junit.cases.filter { $0.name.hasPrefix("hit") }.map(\.name) == ["hit"], "\(junit.cases.map(\.name))")
        #expect(junit.cases.first { $0.name == "hit" }?.outcome == nil, "a handled failure passes")
        #expect(junit.cases.first { $0.name == "hit" }?.out.contains("20 runs: 18 succeeded, 2 failed") == true)
        let past = try await space.run(body("< 5%"))
        #expect(past.status == 1, "\(past.stdout)\(past.stderr)")
        #expect(past.stdout.contains("threshold failures < 5% failed: failures were 10% (2 of 20)"), "\(past.stdout)")
    }

    @Test("check: bad thresholds are errors at file:line:col that say what to write")
    func mistakes() async throws {
        try await Workspace.expectCheckRefuses(
            """
            workflow "bad"
            repeat 3 {
              expect latency p99.999 < 1s
              expect latency p99 < 250
              expect latency of hti p50 < 1s
              expect failures < 1.5x
              expect rate >= fast
              expect latency max == 1s
              expect latncy p99 < 250ms
              expect durations p99 < 1s
              hit: sh "true"
            }
            expect latency p99 < 1s
            api: http GET "http://127.0.0.1:9/" { expect latency p99 < 1s }
            """,
            with: [
                "bad.workflow:3:18: error: expected which latency after 'latency' (min, mean, max or a percentile from p0.1 to p99.99, "
                    + "as in p50, p90, p95, p99, p99.9), found 'p99.999'",
                "bad.workflow:4:24: error: missing unit in duration '250'",
                "bad.workflow:5:21: error: no step labelled 'hti' in this group",
                "bad.workflow:6:21: error: '1.5x' is not a count of failures",
                "bad.workflow:7:18: error: expected a rate after 'rate >=', as in 'expect rate >= 490/s'",
                "bad.workflow:8:22: error: a threshold is a bound: write <, <=, > or >= after 'max', not '=='",
                "bad.workflow:9:10: error: unknown threshold subject 'latncy'; did you mean 'latency'?",
                "bad.workflow:10:10: error: unknown threshold subject 'durations'",
                "bad.workflow:13:1: error: 'expect latency' is a threshold of a group, checked when the group ends",
                "bad.workflow:14:46: error: 'expect latency' is a threshold of a group, checked when the group ends; write it in the block of the group around this step",
            ])
    }

    @Test("fmt keeps thresholds as written; graph and the JSON graph show them")
    func shown() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write(
            "t.workflow",
            """
            workflow "t"
            load: repeat for 1s parallel limit 8 rate 50/s {
                expect   latency p99.9 <  250ms
              expect failures <= 3
              hit: sh "true"
            }
            """)
        let fmt = try await Binary.run(["fmt", "t.workflow"], in: space.folder)
        #expect(fmt.status == 0, "\(fmt.stderr)")
        #expect(
            space.read("t.workflow")?.contains("\n  expect latency p99.9 < 250ms\n  expect failures <= 3\n") == true,
            "\(space.read("t.workflow") ?? "")")
        let graph = try await Binary.run(["graph", "t.workflow"], in: space.folder)
        #expect(graph.stdout.contains("expect latency p99.9 < 250ms"), "\(graph.stdout)")
        let json = try await Binary.run(["graph", "--format", "json", "t.workflow"], in: space.folder)
        #expect(
            json.stdout.contains("\"thresholds\":[\"latency p99.9 < 250ms\",\"failures <= 3\"]")
                || json.stdout.contains("\"latency p99.9 < 250ms\""), "\(json.stdout)")
    }
}
