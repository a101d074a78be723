import Foundation
import Testing

/// Load tests that tell the truth, run end to end against the
/// test server, which counts what it saw: the most requests of a key in it
/// at once (`/gather`), the cookies each request carried.
/// See docs/language.md, 'Load'.
@Suite("End to end: load tests that tell the truth")
struct LoadTruthTests {
    /// What the server's `/gathered` says of `key`: the most requests in
    /// at once, and how many came.
    private func gathered(_ base: String, key: String, in space: Workspace) async throws -> (most: Int, requests: Int) {
        let run = try await space.run(
            """
            workflow "read"
            http GET "\(base)/gathered?key=\(key)" { save "gathered.json" }
            """)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let data = try #require(space.read("gathered.json")?.data(using: .utf8))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Int])
        return (object["most"] ?? -1, object["requests"] ?? -1)
    }

    @Test("'parallel limit 100' has 100 requests in flight, past --http-connections' 64; a group without a limit stays within it")
    func limitRaisesTheCap() async throws {
        let base = try await TestServers.plain()
        let space = try Workspace()
        defer { space.remove() }
        let wide = "wide-\(UUID().uuidString)"
        let plain = "plain-\(UUID().uuidString)"
        // Each request waits in the server until 100 of its key are in at
        // once (3 s at most): the server counts how many were.
        let (run, _) = try await space.run(
            """
            workflow "wide"
            repeat 100 parallel limit 100 {
              hit: http GET "\(base)/gather?key=\(wide)&n=100&ms=3000"
            }
            """, killedAfter: 60)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(try await gathered(base, key: wide, in: space) == (100, 100))

        let (capped, _) = try await space.run(
            """
            workflow "plain"
            repeat 20 parallel {
              hit: http GET "\(base)/gather?key=\(plain)&n=20&ms=300"
            }
            """, ["--http-connections", "5"], killedAfter: 60)
        #expect(capped.status == 0, "\(capped.stdout)\(capped.stderr)")
        #expect(try await gathered(base, key: plain, in: space) == (5, 20))

        try space.write(
            "shape.workflow",
            """
            workflow "shape"
            repeat 300 parallel limit 300 {
              hit: http GET "\(base)/hello"
            }
            """)
        let dry = try await Binary.run(["--dry-run", "shape.workflow"], in: space.folder)
        #expect(dry.stdout.contains("options: http-connections 300 (a group's 'limit')"), "\(dry.stdout)")
    }

    @Test("a descriptor limit that holds 'limit 120' lower is said, and the run keeps within it")
    func descriptorLimitWarns() async throws {
        let base = try await TestServers.plain()
        let space = try Workspace()
        defer { space.remove() }
        let key = "held-\(UUID().uuidString)"
        try space.write(
            "held.workflow",
            """
            workflow "held"
            repeat 120 parallel limit 120 {
              hit: http GET "\(base)/gather?key=\(key)&n=120&ms=300"
            }
            """)
        let binary = try #require(Binary.url)
        let run = try await Binary.runCommand(
            "/bin/bash",
            [
                "-c", "ulimit -n 100; exec timeout -k 2 60 \"$0\" \"$@\"", binary.path,
                "--color", "never", "held.workflow",
            ], in: space.folder)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let said = run.stdout + run.stderr
        #expect(
            said.contains(
                "warning: 'limit 120' runs at most 68 http requests at once: the descriptor limit is 100 "
                    + "(raise it with 'ulimit -n')"), "\(said)")
        let seen = try await gathered(base, key: key, in: space)
        #expect(seen.requests == 120 && seen.most <= 68, "\(seen)")
    }

    @Test("each iteration has its own cookie store, from the run's as the group started; the run's store does not see theirs")
    func cookieStorePerIteration() async throws {
        let base = try await TestServers.plain()
        let space = try Workspace()
        defer { space.remove() }
        let key = "users-\(UUID().uuidString)"
        // All 20 log in before any looks (the server holds each until 20
        // are in): with one shared store, 19 would see another's session.
        let (run, _) = try await space.run(
            """
            workflow "users"
            team: http GET "\(base)/cookies/set?team=blue"
            repeat 20 parallel limit 20 {
              login: http GET "\(base)/cookies/set?user=u{{repeat.index}}"
              barrier: http GET "\(base)/gather?key=\(key)&n=20&ms=3000"
              me: http GET "\(base)/cookies" { expect json ".cookie" == "team=blue; user=u{{repeat.index}}" }
              foreach page in ["a"] {
                inner: http GET "\(base)/cookies/set?page={{page}}"
                inside: http GET "\(base)/cookies" { expect json ".cookie" == "team=blue; user=u{{repeat.index}}; page=a" }
              }
              again: http GET "\(base)/cookies" { expect json ".cookie" == "team=blue; user=u{{repeat.index}}" }
            }
            after: http GET "\(base)/cookies" { expect json ".cookie" == "team=blue" }
            """, killedAfter: 60)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.statuses.filter { $0.hasSuffix(" succeeded") }.count == 2 + 20 * 6, "\(run.statuses)")
    }

    @Test("thresholds at any percentile with decimal durations, failures of a label, and rate counted in iterations")
    func preciseThresholds() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let (run, _) = try await space.run(
            """
            workflow "precise"
            load: repeat 10 parallel limit 10 {
              a: sh "true"
              b: sh "[ {{repeat.index}} -lt 3 ]"
              expect latency p98 < 1h
              expect latency of a p99.99 < 1.5s
              expect latency p97.5 < 0.5m
              expect failures of a < 1
              expect failures of b <= 7
              expect rate >= 1000000/s
              expect rate of a >= 1000000/s
            }
            """, killedAfter: 60)
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        let said = run.stdout + run.stderr
        // Held: every percentile and failures of each label; the rates are
        // far past what 10 iterations can make, and say what they counted:
        // 10 iterations, not the 20 steps of them; 10 runs of a.
        #expect(!said.contains("threshold latency p98"), "\(said)")
        #expect(!said.contains("failures of a < 1 failed") && !said.contains("failures of b <= 7 failed"), "\(said)")
        #expect(said.contains("threshold rate >= 1000000/s failed: the rate was"), "\(said)")
        #expect(said.contains("/s (10 ended)"), "\(said)")
        #expect(!said.contains("(20 ended)"), "\(said)")
        #expect(said.contains("threshold rate of a >= 1000000/s failed"), "\(said)")

        let (strict, _) = try await space.run(
            """
            workflow "strict"
            load: repeat 10 parallel limit 10 {
              b: sh "[ {{repeat.index}} -lt 3 ]"
              expect failures of b < 7
            }
            """, killedAfter: 60)
        #expect(strict.status == 1)
        #expect(
            (strict.stdout + strict.stderr).contains("threshold failures of b < 7 failed: failures were 7 (of 10)"),
            "\(strict.stdout)\(strict.stderr)")
    }

    @Test("p99.9 of exactly 1,000 latencies is the 999th, not the maximum")
    func percentileRank() async throws {
        let space = try Workspace()
        defer { space.remove() }
        // 999 runs take no time, the last one half a second.
        let (run, _) = try await space.run(
            """
            workflow "rank"
            repeat 1000 parallel limit 50 {
              hit: sh "if [ {{repeat.index}} = 999 ]; then sleep 0.5; fi"
            }
            """, killedAfter: 120)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let latency = try #require(run.seconds("hit", "latency"))
        #expect((latency["max"] ?? 0) >= 0.45, "\(latency)")
        #expect((latency["p999"] ?? 1) < 0.45, "\(latency)")
    }

    @Test("a misspelled threshold subject gets a did-you-mean in every block, never the message for a step's expect")
    func misspelledSubject() async throws {
        try await Workspace.expectCheckRefuses(
            """
            workflow "bad"
            if "a" == "a" {
              expect latancy p99 < 1s
              log "x"
            }
            expect failurs < 1%
            race {
              expect ratte >= 1/s
              log "y"
            }
            """,
            with: [
                "bad.workflow:3:10: error: unknown threshold subject 'latancy'; did you mean 'latency'?",
                "bad.workflow:6:8: error: unknown threshold subject 'failurs'; did you mean 'failures'?",
                "bad.workflow:8:10: error: unknown threshold subject 'ratte'; did you mean 'rate'?",
            ])
    }

    @Test("falling behind is said: late p99 in the table, a warning naming the group and its limit, a lateness threshold")
    func lateness() async throws {
        let base = try await TestServers.plain()
        let space = try Workspace()
        defer { space.remove() }
        // One lane for 50 ms requests due every 10 ms: request k cannot
        // start before 50k ms, due at 10k ms, so it is at least 40k ms late
        // on any machine; the limit is what holds it back.
        let (run, _) = try await space.run(
            """
            workflow "behind"
            load: repeat 30 parallel limit 1 rate 100/s {
              hit: http GET "\(base)/slow?ms=50"
              expect lateness p99 < 5ms
            }
            """, killedAfter: 60)
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        let said = run.stdout + run.stderr
        #expect(said.contains("threshold lateness p99 < 5ms failed: lateness p99 was"), "\(said)")
        #expect(said.contains("warning: 'load' fell behind its schedule: lateness p99 "), "\(said)")
        #expect(said.contains("its 'limit 1' held it back"), "\(said)")
        #expect(said.contains("late p99"), "\(said)")
        let lateness = try #require(run.seconds("hit", "lateness"))
        #expect((lateness["p99"] ?? 0) >= 1.0, "\(lateness)")
    }

    @Test("falling behind is said while the group runs, once: the limit as its cause, the lanes it needs, nothing dropped")
    func latenessWarnedWhileRunning() async throws {
        let base = try await TestServers.plain()
        let space = try Workspace()
        defer { space.remove() }
        // 50 ms requests due every 10 ms need 5 lanes; with 2, the 400
        // iterations take at least 10 s, late from the first few.
        try space.write(
            "test.workflow",
            """
            workflow "behind"
            load: repeat 400 parallel limit 2 rate 100/s {
              hit: http GET "\(base)/slow?ms=50"
            }
            """)
        let runner = try RunningBinary(["--color", "never", "test.workflow"], in: space.folder)
        // Watched from a thread of its own, every 20 ms: a test task waits
        // for a thread of the pool, which other tests' runs may hold.
        let output = runner.stdoutURL
        let early = try await Binary.offPool { () -> String in
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline {
                let said = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
                if said.contains("warning: 'load' is falling behind its schedule: ") || said.contains("load: 400/400") { return said }
                Thread.sleep(forTimeInterval: 0.02)
            }
            return (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        }
        // Said while it runs, not as it ends: its end's lines are not there yet.
        #expect(early.contains("warning: 'load' is falling behind its schedule: "), "\(early)")
        #expect(!early.contains("fell behind") && !early.contains("load: 400/400"), "\(early)")
        runner.send(SIGINT)
        _ = try await runner.waitForExit()
        let said = runner.stdout
        let warnings = said.split(separator: "\n").filter { $0.contains("is falling behind") }
        #expect(warnings.count == 1, "\(said)")
        let warning = try #require(warnings.first)
        // Late past 1% of its planned 4 s.
        #expect(warning.contains(" iterations started over 40ms late (the latest by "), "\(warning)")
        #expect(
            warning.contains("its 'limit 2' held it back (every lane was busy when they were due): raise it to at least "),
            "\(warning)")
        // 100/s × a little over 50 ms: at least 5 lanes.
        let needed = warning.firstMatch(of: #/raise it to at least (\d+) \(100/s × /#).flatMap { Int($0.1) }
        #expect((needed ?? 0) >= 5, "\(warning)")
        #expect(
            warning.contains("none is dropped: each starts as soon as it can, its latency counted from when it was due"),
            "\(warning)")
    }

    @Test("a CI log: no line per success of a repeat, the first 100 failures of a label, one line for what a fail-fast repeat never started")
    func ciLog() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let (run, _) = try await space.run(
            """
            workflow "log"
            load: repeat 300 parallel limit 10 {
              g: sh "true"
            }
            flaky: repeat 150 parallel limit 10 {
              bad: sh "[ {{repeat.index}} -ge 140 ]"
              expect failures < 100%
            }
            """, killedAfter: 120)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let lines = run.stdout.split(separator: "\n")
        #expect(!lines.contains { $0.hasPrefix("✓ g[") }, "\(run.stdout)")
        #expect(lines.filter { $0.hasPrefix("✗ bad[") }.count == 100, "\(run.stdout)")
        // The table at the end lists 60 of the 140 failures, and says so.
        #expect(lines.filter { $0.hasPrefix("bad[") }.count == 60, "\(run.stdout)")
        #expect(lines.contains("… 80 more that did not succeed, not listed"), "\(run.stdout)")
        #expect(run.stdout.contains("label"), "the statistics table: \(run.stdout)")

        let stoppedWorkflow = """
            workflow "stopped"
            load: repeat 2000 parallel limit 1 {
              g: sh "[ {{repeat.index}} -lt 3 ]"
            }
            """
        let (stopped, _) = try await space.run(stoppedWorkflow, killedAfter: 120)
        #expect(stopped.status == 1)
        let said = stopped.stdout.split(separator: "\n")
        #expect(said.contains { $0.contains("load: 1,996 iterations not started") }, "\(stopped.stdout)")
        // Not a line each for the 1,996, while it runs or in the table at
        // the end: one line for them there too.
        #expect(said.contains("… 1,996 iterations of g skipped (not started), not listed"), "\(stopped.stdout)")
        #expect(!said.contains { $0.hasPrefix("g[") && $0.contains("skipped") }, "\(stopped.stdout)")
        #expect(said.count < 25, "\(said.count) lines: \(stopped.stdout)")
        // The same with --events beside the console.
        let (watched, _) = try await space.run(stoppedWorkflow, ["--events", "events.jsonl"], killedAfter: 120)
        #expect(watched.stdout.contains("load: 1,996 iterations not started"), "\(watched.stdout)")
    }

    @Test("without a terminal, a progress line per running load group every 10 seconds and as it ends, not one per label")
    func progressLines() async throws {
        let space = try Workspace()
        defer { space.remove() }
        // Iterations are due until 10.95 s: the run outlasts the first
        // 10-second mark on any machine. Two labels, one group: its line,
        // not theirs.
        let (run, _) = try await space.run(
            """
            workflow "long"
            load: repeat for 11s parallel limit 2 rate 20/s {
              g: sh "true"
              h: sh "[ {{repeat.index}} -ge 3 ]"
              expect failures < 5%
            }
            after: repeat for 1s {
              a: sleep 100ms
            }
            """, killedAfter: 120)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(!lines.contains { $0.hasPrefix("g: ") || $0.hasPrefix("h: ") }, "\(run.stdout)")
        // Ended of the 220 planned, the rate, the latency, the failures.
        let pattern = #/^load: ([\d,]+)/220, [\d.]+/s, p50 [\d.]+m?s, p99 [\d.]+m?s, 3 failed$/#
        let progress = lines.compactMap { try? pattern.wholeMatch(in: $0) }.map { Int($0.1.replacing(",", with: "")) ?? -1 }
        #expect(progress.count >= 2, "\(run.stdout)")
        // The one at 10 s with fewer, the one as it ended with all 220.
        #expect(progress.dropLast().allSatisfy { $0 < 220 } && progress.last == 220, "\(progress)")
        // `repeat for` without a rate: the time gone of its duration.
        #expect(lines.contains { $0.hasPrefix("after: ") && $0.contains(" (1s of 1s), ") }, "\(run.stdout)")
    }

    @Test("-q keeps the statistics and the thresholds")
    func quietKeepsTables() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let (run, _) = try await space.run(
            """
            workflow "quiet"
            load: repeat 20 parallel limit 5 {
              g: sh "true"
              expect failures < 1%
            }
            """, ["-q"], killedAfter: 60)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("late p99"), "\(run.stdout)")
        #expect(run.stdout.contains("load: failures < 1%"), "\(run.stdout)")
        #expect(run.stdout.contains("✓ quiet succeeded"), "\(run.stdout)")
        // The table opens the output: no blank line before it.
        #expect(run.stdout.hasPrefix("label "), "\(run.stdout)")
    }

    @Test("on a terminal the live area is drawn at most ten times a second, not at every request")
    func liveRedraws() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { return }
        let base = try await TestServers.plain()
        let space = try Workspace()
        defer { space.remove() }
        try space.write(
            "test.workflow",
            """
            workflow "live"
            load: repeat 3000 parallel limit 20 {
              hit: http GET "\(base)/hello"
            }
            """)
        let binary = try #require(Binary.url).path
        let started = Date()
        let outcome = try await Binary.runCommand(
            "/usr/bin/script", ["-qfec", "timeout -k 2 120 \(binary) test.workflow", "typescript"],
            in: space.folder, environment: ["TERM": "xterm", "NO_COLOR": ""])
        let seconds = Date().timeIntervalSince(started)
        #expect(outcome.status == 0, "\(outcome.stdout)\(outcome.stderr)")
        let screen = space.read("typescript") ?? ""
        // Each drawing clears the one before (ESC [ J): counted against
        // the time the whole run took, measured from outside, so a slow
        // machine allows more, never fewer.
        let drawings = screen.components(separatedBy: "\u{1B}[J").count - 1
        #expect(Double(drawings) <= seconds * 10 + 5, "\(drawings) drawings in \(seconds) s")
    }

    @Test("the HTML page in the order that decides: thresholds and deciding failures, statistics with labelled axes, handled failures")
    func htmlOrder() async throws {
        guard let browser = try HTMLReportBrowserTests.chromium() else { return }
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(
            """
            workflow "page"
            load: repeat 20 parallel limit 5 {
              hit: sh "[ {{repeat.index}} -ge 2 ]"
              expect failures < 5%
            }
            """, ["--report", "html=report.html", "--report", "junit=junit.xml"])
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        let (dom, console) = try await HTMLReportBrowserTests.load(browser, space.path("report.html"), in: space)
        #expect(console.isEmpty, "console: \(console)")
        let thresholds = try #require(dom.range(of: "<h2>Thresholds</h2>"))
        let statistics = try #require(dom.range(of: "<h2>Statistics</h2>"))
        let handled = try #require(dom.range(of: "<h2>Handled failures ("))
        #expect(thresholds.lowerBound < statistics.lowerBound && statistics.lowerBound < handled.lowerBound)
        #expect(dom.contains("latency (log) → · ↑ runs"), "the chart's axis is labelled")
        #expect(HTMLReportBrowserTests.count("class=\"axis\"", in: dom) >= 6)
        #expect(dom.contains("<svg class=\"series\""), "the series over time is drawn")
        #expect(dom.contains("time → · ↑ runs/s"), "its axes are labelled")
        #expect(dom.contains("time → · ↑ p99 (most "), "the p99 over time too")
        // The JSON report has the series too: a point a second, all 20 runs.
        let series = try #require(run.stats("hit")?["series"] as? [String: Any])
        #expect(series["secondsPerPoint"] as? Int == 1)
        let points = try #require(series["points"] as? [[String: Any]])
        #expect(!points.isEmpty && points.count <= 600)
        #expect(points.compactMap { $0["completions"] as? Int }.reduce(0, +) == 20)
        #expect(points.compactMap { $0["failures"] as? Int }.reduce(0, +) == 2)

        // JUnit: one test case for the 20 runs of hit, passing (the
        // thresholds handled its failures), and the threshold's, failed.
        let junit = try JUnitShape.read(space)
        #expect(junit.cases.filter { $0.name.hasPrefix("hit") }.count == 1, "\(junit.cases.map(\.name))")
        #expect(junit.cases.first { $0.name == "hit" }?.outcome == nil)
        #expect(junit.cases.first { $0.name == "failures < 5%" }?.outcome == "failure", "\(junit.cases)")
    }

    @Test("Dispatch's global queues keep working while a rate group runs: a step done there (file, sleep) ends while the group still runs")
    func dispatchDuringRate() async throws {
        let base = try await TestServers.plain()
        let space = try Workspace()
        defer { space.remove() }
        // The group's iterations wait on the pacer and on requests; the
        // probe's file steps run on a global queue, its sleeps on a
        // Dispatch timer. All 5 end long before the group's 4 s do.
        let (run, _) = try await space.run(
            """
            workflow "probe"
            parallel {
              load: repeat for 4s parallel limit 2 rate 100/s {
                hit: http GET "\(base)/slow?ms=30"
                tick: sleep 5ms
              }
              probe: repeat 5 {
                write: file write "probe-{{repeat.index}}.txt" "{{repeat.index}}"
                pause: sleep 50ms
              }
            }
            """, killedAfter: 60)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        func end(_ record: [String: Any]?) -> Double? {
            guard let record, let start = record["startedAt"] as? String, let duration = record["durationSeconds"] as? Double,
                let date = ISO8601DateFormatter.withFractions.date(from: start)
            else { return nil }
            return date.timeIntervalSince1970 + duration
        }
        let groupEnd = try #require(end(run.group("load")), "\(run.reportText ?? "")")
        let probeEnd = try #require(end(run.step("pause[4]")), "\(run.reportText ?? "")")
        #expect(probeEnd < groupEnd, "the probe ended at \(probeEnd), the group at \(groupEnd)")
    }

    @Test(
        "the Markdown report: thresholds and the failures that decided first, statistics with late p99 and each label's series, handled failures after"
    )
    func markdownSeries() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(
            """
            workflow "md"
            load: repeat 20 parallel limit 5 rate 50/s {
              hit: sh "[ {{repeat.index}} -ge 2 ]"
              expect failures < 5%
            }
            handled: sh "exit 3" { allow-failure }
            """, ["--report", "markdown=report.md"])
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        let markdown = try #require(space.read("report.md"))
        let order = [
            "### Thresholds", "### Failures", "### Statistics", "<summary>hit over time (a point every second)</summary>",
            "### Handled failures", "### Steps",
        ].map { markdown.range(of: $0)?.lowerBound }
        #expect(!order.contains(nil) && order.compactMap { $0 } == order.compactMap { $0 }.sorted(), "\(markdown)")
        #expect(markdown.contains("| max | late p99 |"), "\(markdown)")
        // The series: a row a second, every run and failure in it.
        let header = try #require(markdown.range(of: "| t (s) | completions | failures | p50 | p99 |\n|---:|---:|---:|---:|---:|\n"))
        let rows = markdown[header.upperBound...].prefix { $0 != "<" }.split(separator: "\n").filter { $0.hasPrefix("| ") }
        let cells = rows.map { $0.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) } }
        #expect(!cells.isEmpty && cells.count <= 600)
        #expect(cells.compactMap { Int($0[1]) }.reduce(0, +) == 20, "\(rows)")
        #expect(cells.compactMap { Int($0[2]) }.reduce(0, +) == 2, "\(rows)")
    }

    @Test("-vv prints each http request and response as curl -v does, 4 KiB of each body, secrets masked")
    func wire() async throws {
        let base = try await TestServers.plain()
        let space = try Workspace()
        defer { space.remove() }
        let (run, _) = try await space.run(
            """
            workflow "wire"
            secret token = "s3cr3t-t0ken"
            sent: http POST "\(base)/mirror" {
              header Authorization "Bearer {{token}}"
              body "{\\"note\\": \\"hello {{token}}\\"}"
            }
            big: http GET "\(base)/large?bytes=10000"
            """, ["-vv"], killedAfter: 60)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let wire = run.stderr
        #expect(wire.contains("* sent\n> POST /mirror HTTP/1.1\n> Host: 127.0.0.1:"), "\(wire)")
        #expect(wire.contains("> Authorization: Bearer ***"), "\(wire)")
        #expect(wire.contains("> {\"note\": \"hello ***\"}"), "\(wire)")
        #expect(wire.contains("< HTTP/1.1 200 OK\n"), "\(wire)")
        #expect(wire.contains("< {\"note\": \"hello ***\"}"), "\(wire)")
        #expect(!wire.contains("s3cr3t-t0ken"), "\(wire)")
        // 4 KiB of the 10,000 bytes, and how many more.
        #expect(wire.contains("< " + String(repeating: "x", count: 4096) + "\n< (5904 more bytes)"), "\(wire.suffix(300))")
        // One -v shows none of it.
        let (plain, _) = try await space.run(
            """
            workflow "wire"
            sent: http GET "\(base)/hello"
            """, ["-v"], killedAfter: 60)
        #expect(!plain.stderr.contains("> GET"), "\(plain.stderr)")
    }

    @Test("-vv through libcurl shows the request as sent: a proxy's absolute URL, HTTP/2, the body, secrets masked")
    func wireAsSent() async throws {
        let base = try await TestServers.plain()
        let proxy = try await TestServers.proxy()
        let tls = try await TestServers.tls()
        let space = try Workspace()
        defer { space.remove() }
        // Through a proxy (libcurl) the request line holds the whole URL.
        let (proxied, _) = try await space.run(
            """
            workflow "wire"
            secret token = "s3cr3t-t0ken"
            via: http GET "\(base)/echo?through=proxy" { header Authorization "Bearer {{token}}" }
            """, ["-vv"], environment: ["http_proxy": proxy.url, "no_proxy": ""], killedAfter: 60)
        #expect(proxied.status == 0, "\(proxied.stdout)\(proxied.stderr)")
        #expect(proxied.stderr.contains("* via\n> GET \(base)/echo?through=proxy HTTP/1.1\n> Host: 127.0.0.1:"), "\(proxied.stderr)")
        #expect(proxied.stderr.contains("> Authorization: Bearer ***\n"), "\(proxied.stderr)")
        #expect(!proxied.stderr.contains("> GET /echo"), "\(proxied.stderr)")
        #expect(!proxied.stderr.contains("s3cr3t-t0ken"), "\(proxied.stderr)")

        // HTTPS (libcurl): the body libcurl sent, after its head, before the response.
        let (secure, _) = try await space.run(
            """
            workflow "wire"
            secret token = "s3cr3t-t0ken"
            sent: http POST "\(tls.url)/mirror" {
              cacert "\(tls.file("ca.pem"))"
              header Authorization "Bearer {{token}}"
              body "{\\"note\\": \\"hello {{token}}\\"}"
            }
            """, ["-vv"], killedAfter: 60)
        #expect(secure.status == 0, "\(secure.stdout)\(secure.stderr)")
        let wire = secure.stderr
        #expect(wire.contains("* sent\n> POST /mirror HTTP/1.1\n> Host: 127.0.0.1:"), "\(wire)")
        #expect(wire.contains("> Authorization: Bearer ***\n"), "\(wire)")
        let sentBody = try #require(wire.range(of: "* sent\n> {\"note\": \"hello ***\"}\n"), "\(wire)")
        let response = try #require(wire.range(of: "< HTTP/1.1 200 OK\n"), "\(wire)")
        #expect(sentBody.lowerBound < response.lowerBound)
        #expect(!wire.contains("s3cr3t-t0ken"), "\(wire)")

        // HTTP/2, when nginx is here to speak it.
        guard let nginx = try await TestServers.ifInstalled(TestServers.nginxHTTP2(), "HTTP/2 on the wire") else { return }
        let (two, _) = try await space.run(
            """
            workflow "wire"
            two: http GET "\(nginx.url)/hello" { cacert "\(nginx.file("ca.pem"))" }
            """, ["-vv"], killedAfter: 60)
        #expect(two.status == 0, "\(two.stdout)\(two.stderr)")
        #expect(two.stderr.contains("* two\n> GET /hello HTTP/2\n> Host: 127.0.0.1:"), "\(two.stderr)")
        #expect(two.stderr.contains("< HTTP/2 200\n"), "\(two.stderr)")
    }

    @Test(
        "the load shape from --var: repeat {{n}}, limit {{l}} (raising the connection cap), rate {{r}}, repeat for {{d}}; a bad value fails before any iteration"
    )
    func templatedShape() async throws {
        let base = try await TestServers.plain()
        let space = try Workspace()
        defer { space.remove() }
        let key = "shape-\(UUID().uuidString)"
        let timed = "timed-\(UUID().uuidString)"
        let bad = "bad-\(UUID().uuidString)"
        let workflow = """
            workflow "shape"
            var n = "3"
            var l = "2"
            var r = "50/s"
            var d = "1s"
            var key = "\(key)"
            load: repeat {{n}} parallel limit {{l}} rate {{r}} {
              hit: http GET "\(base)/gather?key={{key}}&n={{l}}&ms=3000"
            }
            timed: repeat for {{d}} parallel limit 4 rate 20/s {
              tick: http GET "\(base)/gather?key=\(timed)&n=1"
            }
            """
        // 100 at once: past --http-connections' 64, from the --var.
        let (run, _) = try await space.run(workflow, ["--var", "n=100", "--var", "l=100", "--var", "r=10000/s"], killedAfter: 60)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(try await gathered(base, key: key, in: space) == (100, 100))
        // repeat for 1s at 20/s: exactly the 20 due.
        #expect(try await gathered(base, key: timed, in: space).requests == 20)

        let (wrong, _) = try await space.run(workflow, ["--var", "n=lots", "--var", "key=\(bad)"], killedAfter: 60)
        #expect(wrong.status == 1)
        #expect((wrong.stdout + wrong.stderr).contains("'{{n}}' is 'lots', not a count from 1 to 100000000"), "\(wrong.stdout)")
        #expect(try await gathered(base, key: bad, in: space).requests == 0)
        // Over the bound: the bound is said.
        let (fast, _) = try await space.run(workflow, ["--var", "r=20000000/s", "--var", "key=\(bad)"], killedAfter: 60)
        #expect(fast.status == 1)
        #expect(fast.stdout.contains("'{{r}}' is '20000000/s': a rate is at most 10000000/s; no iteration started"), "\(fast.stdout)")

        // A group with thresholds that fails as it starts ran nothing to
        // judge: its own error is the run's, and no threshold is listed
        // as held or failed (a ✓ for a group that never ran would mislead).
        let judged = """
            workflow "judged"
            var n = "3"
            load: repeat {{n}} parallel limit 2 rate 50/s {
              expect latency p99 < 1s
              expect failures < 1%
              hit: http GET "\(base)/gather?key=\(bad)&n=1"
            }
            """
        let (unjudged, _) = try await space.run(judged, ["--var", "n=0"], killedAfter: 60)
        #expect(unjudged.status == 1)
        #expect(unjudged.stdout.contains("'{{n}}' is '0', not a count from 1 to 100000000"), "\(unjudged.stdout)")
        #expect(!unjudged.stdout.contains("latency p99 < 1s"), "\(unjudged.stdout)")
        #expect(!unjudged.stdout.contains("failures < 1%"), "\(unjudged.stdout)")
        let listed = unjudged.group("load")?["thresholds"] as? [[String: Any]]
        #expect(listed == nil || listed?.isEmpty == true, "\(unjudged.stdout)")
        // The same group run: judged.
        let (ran, _) = try await space.run(judged, [], killedAfter: 60)
        #expect(ran.status == 0, "\(ran.stdout)")
        #expect(ran.stdout.contains("latency p99 < 1s"), "\(ran.stdout)")
        let checked = ran.group("load")?["thresholds"] as? [[String: Any]]
        #expect(checked?.count == 2, "\(ran.stdout)")

        // check, graph, --dry-run and fmt know the words.
        try space.write("shape.workflow", workflow + "\n")
        let check = try await Binary.run(["check", "shape.workflow"], in: space.folder)
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        let graph = try await Binary.run(["graph", "shape.workflow"], in: space.folder)
        #expect(graph.stdout.contains("repeat {{n}}  [parallel, limit {{l}}, rate {{r}}]"), "\(graph.stdout)")
        let dry = try await Binary.run(["--dry-run", "--var", "n=7", "--var", "l=100", "shape.workflow"], in: space.folder)
        #expect(dry.stdout.contains("repeat 7  [parallel, limit 100, rate 50/s]"), "\(dry.stdout)")
        #expect(dry.stdout.contains("http-connections 100 (a group's 'limit')"), "\(dry.stdout)")
        let fmt = try await Binary.run(["fmt", "--check", "shape.workflow"], in: space.folder)
        #expect(fmt.status == 0, "\(fmt.stdout)\(fmt.stderr)")
    }

    @Test("under a fast schedule, latency and timings say when each response arrived, not when the runner read it")
    func deferredReadsKeepTrueTimes() async throws {
        // nginx answers a small file in about 0.1 ms; the test server
        // takes longer than the interval, which this needs well under it.
        guard let server = try TestServers.ifInstalled(TestServers.nginxPlain(), "the fast schedule's latency") else { return }
        let space = try Workspace()
        defer { space.remove() }
        // 1,000 a second over TCP: the loop wakes each millisecond for
        // the schedule and reads the responses that came meanwhile then
        // (EventLoop's deferred reads). Timed by that read, a response
        // would take most of the interval, about 1 ms; its receive stamp
        // says when it came. Beside it, in the same run and so under the
        // same load, the same file over a Unix socket, whose reads are
        // never deferred (no stamps): the control. On a loaded machine
        // both take longer (a CI run saw 0.9 ms medians for both, and
        // lateness p50 2 ms); timed by the read, the TCP requests would
        // take the interval more than the control.
        let (run, _) = try await space.run(
            """
            workflow "fast"
            parallel {
              repeat for 2s parallel limit 64 rate 1000/s {
                get: http GET "\(server.url)/hello"
              }
              repeat for 2s parallel limit 8 rate 100/s {
                control: http GET "http://localhost/hello" { unix-socket "\(server.socket)" }
              }
            }
            """, killedAfter: 60)
        #expect(run.status == 0, "\(run.stdout.suffix(2000))\(run.stderr)")
        // Latency runs from the due moment, so it holds the schedule's
        // lateness too: what a request took on top of it is the median's
        // excess over the lateness's.
        func excess(_ label: String) -> Double {
            let latency = run.seconds(label, "latency") ?? [:]
            let lateness = run.seconds(label, "lateness") ?? [:]
            return (latency["p50"] ?? 1) - (lateness["p50"] ?? 0)
        }
        #expect(excess("get") < excess("control") + 0.0005, "get \(excess("get")), control \(excess("control"))")
        // Each listed step's own timings, from the same stamps.
        func median(_ label: String, _ timing: String) throws -> Double {
            let values = run.steps.filter { ($0["id"] as? String)?.hasPrefix(label + "[") == true }
                .compactMap { ($0["timings"] as? [String: Double])?[timing] }.sorted()
            try #require(values.count >= 100, "\(values.count) \(label) steps listed")
            return values[values.count / 2]
        }
        for timing in ["total", "firstByte"] {
            let fast = try median("get", timing)
            let control = try median("control", timing)
            #expect(fast < control + 0.0005, "median \(timing): get \(fast), control \(control)")
        }
    }

    @Test("a ramp: rate 0/s ramp 20/s in 1s, 20/s in 1s sends exactly the 30 iterations its integral plans, none before it is due")
    func ramp() async throws {
        let base = try await TestServers.plain()
        let space = try Workspace()
        defer { space.remove() }
        let anchor = "anchor-\(UUID().uuidString)"
        let key = "ramp-\(UUID().uuidString)"
        let workflow = """
            workflow "ramp"
            http GET "\(base)/arrive?key=\(anchor)"
            ramp: repeat parallel limit 50 rate 0/s ramp 20/s in 1s, 20/s in 1s {
              hit: http GET "\(base)/arrive?key=\(key)"
            }
            """
        let (run, _) = try await space.run(workflow, killedAfter: 60)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let start = try #require(try await RateTests.arrivals(space, base: base, key: anchor, absolute: true).first)
        let times = try await RateTests.arrivals(space, base: base, key: key, absolute: true).sorted()
        // The integral: 10 in the first second (20t), 20 in the next.
        try #require(times.count == 30, "\(times.count) requests")
        // Iteration k is due where the integral reaches k: √(k/10) s in the
        // first stage, 1 + (k-10)/20 s in the second. Late is allowed (a
        // loaded machine), early never: a constant rate would send the
        // second request at 50 ms, not 316 ms.
        let due: [Double] = (0..<30).map { (k: Int) -> Double in
            let position = Double(k)
            return k <= 10 ? (position / 10).squareRoot() : 1 + (position - 10) / 20
        }
        let early = times.enumerated().filter { $0.element < start + due[$0.offset] - 0.001 }
        #expect(early.isEmpty, "arrived before due: \(early.map { "\($0.offset): \($0.element - start)" })")

        try space.write("ramp.workflow", workflow + "\n")
        let graph = try await Binary.run(["graph", "ramp.workflow"], in: space.folder)
        #expect(graph.stdout.contains("repeat  [parallel, limit 50, rate 0/s ramp 20/s in 1s, 20/s in 1s, 30 iterations]"), "\(graph.stdout)")
        let fmt = try await Binary.run(["fmt", "--check", "ramp.workflow"], in: space.folder)
        #expect(fmt.status == 0, "\(fmt.stdout)\(fmt.stderr)")
        try await Workspace.expectCheckRefuses(
            """
            workflow "bad"
            repeat parallel limit 4 {
              log "x"
            }
            repeat 3 parallel ramp 5/s in 1s {
              log "y"
            }
            repeat parallel rate 0/s ramp {{peak}} in 1s {
              log "z"
            }
            repeat parallel rate 0/s ramp 5/s in {{hold}} {
              log "w"
            }
            repeat parallel rate {{start}} ramp 5/s in 1s {
              log "v"
            }
            """,
            with: [
                "bad.workflow:2:8: error: a repeat without a count or 'for' ends with the last stage of its rate's ramp",
                "bad.workflow:5:19: error: 'ramp' follows a rate, as in 'rate 0/s ramp 500/s in 30s, 0/s in 30s'",
                // A ramp's schedule is known before the run: no template
                // in it, said where it is (the start's was taken and
                // silently left out of the schedule).
                "bad.workflow:8:31: error: a ramp's stages are written as numbers ('ramp 500/s in 30s')",
                "bad.workflow:11:38: error: a ramp's stages are written as numbers ('ramp 500/s in 30s')",
                "bad.workflow:14:17: error: a ramp starts at a rate written as a number ('rate 0/s ramp 500/s in 30s')",
            ])
    }
}

extension ISO8601DateFormatter {
    /// `2026-11-28T00:29:01.678Z`, as the JSON report writes times.
    fileprivate static var withFractions: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}
