import Foundation
import Testing

/// `--metrics-listen` and `--events`: a load test watched by a
/// real Prometheus as it runs, every exposition checked by `promtool`, and
/// the event stream read line by line against the JSON report. Every
/// address is 127.0.0.1.
/// See docs/command.md, 'Watching a run'.
@Suite("End to end: metrics while it runs", .serialized)
struct MetricsEndToEndTests {
    /// `prometheus` and `promtool`, or nil (the test then passes, saying
    /// so) when they are not installed and not required.
    static func prometheus() throws -> (server: String, tool: String)? {
        let server = "/usr/bin/prometheus"
        let tool = "/usr/bin/promtool"
        if FileManager.default.isExecutableFile(atPath: server), FileManager.default.isExecutableFile(atPath: tool) {
            return (server, tool)
        }
        let required = ProcessInfo.processInfo.environment["PROMISE_RUN_REQUIRE_TOOLS"] == "1"
        try #require(!required, "Prometheus is required (PROMISE_RUN_REQUIRE_TOOLS=1) but not installed: run .ci/install-deps")
        print("prometheus is not installed (.ci/install-deps installs it): the run is not watched by a real Prometheus here")
        return nil
    }

    /// GET `url`'s body (nil when it does not answer 200 within 5 s).
    static func get(_ url: String) async -> String? {
        let outcome = try? await Binary.runCommand("/usr/bin/curl", ["-s", "-f", "--max-time", "5", url])
        guard let outcome, outcome.status == 0 else { return nil }
        return outcome.stdout
    }

    /// The value of a one-series instant query, from Prometheus's HTTP API.
    static func query(_ base: String, _ promql: String) async -> Double? {
        let encoded = promql.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? promql
        guard let body = await get("\(base)/api/v1/query?query=\(encoded)"),
            let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
            let data = object["data"] as? [String: Any], let result = data["result"] as? [[String: Any]],
            let first = result.first, let value = first["value"] as? [Any], value.count == 2,
            let text = value[1] as? String
        else { return nil }
        return Double(text)
    }

    /// `promtool check metrics` on one exposition: its complaints (empty
    /// when it found none).
    static func check(_ exposition: String, with tool: String) async throws -> String {
        let outcome = try await Binary.runCommand(tool, ["check", "metrics"], stdin: exposition)
        return outcome.status == 0 ? "" : "exit \(outcome.status): \(outcome.stdout)\(outcome.stderr)"
    }

    @Test("a 15 s load test scraped by Prometheus each second: its counters, and p99 from the histogram within 10% of the run's")
    func prometheusWatchesALoadTest() async throws {
        guard let (prometheus, promtool) = try Self.prometheus() else { return }
        let base = try await TestServers.plain()
        let space = try Workspace()
        defer { space.remove() }
        let metricsPort = freeLoopbackPort()
        let prometheusPort = freeLoopbackPort()
        try space.write(
            "prometheus.yml",
            """
            global:
              scrape_interval: 1s
              scrape_timeout: 1s
            scrape_configs:
              - job_name: promise-run
                static_configs:
                  - targets: ["127.0.0.1:\(metricsPort)"]
            """)
        let server = ChildProcess()
        server.executableURL = URL(fileURLWithPath: prometheus)
        server.arguments = [
            "--config.file=\(space.path("prometheus.yml"))", "--storage.tsdb.path=\(space.path("tsdb"))",
            "--web.listen-address=127.0.0.1:\(prometheusPort)", "--log.level=warn",
        ]
        server.standardOutput = FileHandle.nullDevice
        server.standardError = try FileHandle(
            forWritingTo: {
                _ = FileManager.default.createFile(atPath: space.path("prometheus.log"), contents: nil)
                return URL(fileURLWithPath: space.path("prometheus.log"))
            }())
        try server.run()
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        let api = "http://127.0.0.1:\(prometheusPort)"
        var ready = false
        for _ in 0..<300 where !ready {
            ready = await Self.get("\(api)/-/ready") != nil
            if !ready { try await Task.sleep(for: .milliseconds(100)) }
        }
        try #require(ready, "Prometheus did not get ready: \(space.read("prometheus.log") ?? "")")

        try space.write(
            "test.workflow",
            """
            workflow "watched"
            load: repeat for 15s parallel limit 32 rate 80/s {
              hit: http GET "\(base)/slow?ms=5" {
                expect status 200
              }
            }
            """)
        let run = try RunningBinary(
            [
                "--metrics-listen", "127.0.0.1:\(metricsPort)", "--report", "json=report.json",
                "--color", "never", "test.workflow",
            ], in: space.folder)
        // While it runs: every exposition passes promtool, and Prometheus
        // has the counters before the run ends.
        var expositions = 0
        var seenWhileRunning: Double?
        let deadline = ContinuousClock.now + .seconds(120)
        while run.process.isRunning, ContinuousClock.now < deadline {
            if let exposition = await Self.get("http://127.0.0.1:\(metricsPort)/metrics") {
                expositions += 1
                let complaints = try await Self.check(exposition, with: promtool)
                #expect(complaints.isEmpty, "\(complaints)\n\(exposition.prefix(2000))")
                // No status before the run starts (the workflow is still being
                // read: on a loaded machine a scrape can come first); then
                // running, then (in the 2 s it stays open after the end)
                // succeeded, always under the workflow's name.
                #expect(
                    !exposition.contains("promise_run_status{")
                        || exposition.contains("promise_run_status{workflow=\"watched\",status=\"running\"} 1")
                        || exposition.contains("promise_run_status{workflow=\"watched\",status=\"succeeded\"} 1"),
                    "\(exposition.suffix(800))")
            }
            if seenWhileRunning == nil, run.process.isRunning,
                let value = await Self.query(api, "promise_run_step_runs_total{label=\"hit\",status=\"succeeded\"}"), value > 0
            {
                seenWhileRunning = value
            }
            try await Task.sleep(for: .milliseconds(700))
        }
        let status = try await run.waitForExit(timeout: .seconds(60))
        #expect(status == 0, "\(run.stdout)\(run.stderr)")
        // Scraped while it ran, each exposition checked by promtool. How
        // many times this loop gets to scrape in 15 s depends on the suite
        // around it (each pass runs curl and promtool: a busy suite made
        // two); Prometheus's own scrapes, each second, are what
        // `seenWhileRunning` and the counts below judge.
        #expect(expositions >= 1, "scraped \(expositions) times")
        #expect(seenWhileRunning != nil, "Prometheus had no count of 'hit' while the run went on")

        let report = WorkflowRun(
            outcome: Binary.Outcome(status: status, exitedNormally: true, stdout: run.stdout, stderr: run.stderr),
            reportText: space.read("report.json"))
        let stats = try #require(report.stats("hit"), "\(report.reportText ?? "no report")")
        let count = try #require(stats["count"] as? Int)
        let p99 = try #require(report.seconds("hit", "latency")?["p99"])
        // The run is over: its series are stale, so the last values are
        // read over a range.
        var counted: Double?
        for _ in 0..<50 {
            counted = await Self.query(api, "last_over_time(promise_run_step_runs_total{label=\"hit\",status=\"succeeded\"}[5m])")
            if counted == Double(count) { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(counted == Double(count), "Prometheus counted \(String(describing: counted)), the report \(count)")
        let responses = await Self.query(api, "last_over_time(promise_run_http_responses_total{label=\"hit\",code=\"200\"}[5m])")
        #expect(responses == Double(count))
        let quantile = try #require(
            await Self.query(
                api,
                "histogram_quantile(0.99, last_over_time(promise_run_step_latency_seconds_bucket{label=\"hit\"}[5m]))"))
        #expect(abs(quantile - p99) <= 0.1 * p99, "Prometheus's p99 \(quantile) s, the run's \(p99) s")
        let finalStatus = await Self.query(api, "last_over_time(promise_run_status{status=\"succeeded\"}[5m])")
        #expect(finalStatus == 1, "the last scrape did not see the run succeed")
    }

    /// The lines of an events file, each parsed.
    static func events(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
        }
    }

    @Test("--events: one JSON object a line, in order, its counts equal to the JSON report's, thresholds in group-end")
    func eventsMatchTheReport() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let (run, _) = try await space.run(
            """
            workflow "events"
            prepare: sh "true"
            load: repeat 1200 parallel limit 8 {
              expect failures < 50%
              tick: sh "test $(( {{repeat.index}} % 100 )) != 7"
            }
            last: log "done"
            """, ["--events", "events.jsonl", "--keep-going"], killedAfter: 120)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let events = try Self.events(try #require(space.read("events.jsonl")))
        #expect(events.first?["event"] as? String == "run-start")
        #expect(events.last?["event"] as? String == "run-end")
        #expect(events.allSatisfy { ($0["time"] as? String)?.hasSuffix("Z") == true })
        let ends = events.filter { $0["event"] as? String == "step-end" }
        let starts = events.filter { $0["event"] as? String == "step-start" }
        let ticks = ends.filter { ($0["id"] as? String)?.hasPrefix("tick[") == true }
        let stats = try #require(run.stats("tick"))
        #expect(ticks.count == stats["count"] as? Int)
        #expect(ticks.filter { $0["status"] as? String == "failed" }.count == stats["failed"] as? Int)
        #expect(ticks.filter { $0["status"] as? String == "succeeded" }.count == stats["succeeded"] as? Int)
        #expect(starts.count == ends.count)
        // Every step the report has (listed, or counted past the first
        // 1,000 of a label), by status.
        var reported: [String: Int] = [:]
        for step in run.steps { reported[step["status"] as? String ?? "?", default: 0] += 1 }
        for (status, count) in run.report?["stepsNotListed"] as? [String: Int] ?? [:] { reported[status, default: 0] += count }
        var streamed: [String: Int] = [:]
        for end in ends { streamed[end["status"] as? String ?? "?", default: 0] += 1 }
        #expect(streamed == reported)
        let runEnd = try #require(events.last)
        #expect(runEnd["steps"] as? [String: Int] == reported)
        #expect(runEnd["status"] as? String == "succeeded" && runEnd["exitCode"] as? Int == 0)
        let group = try #require(events.first { $0["event"] as? String == "group-end" && $0["id"] as? String == "load" })
        let thresholds = try #require(group["thresholds"] as? [[String: Any]])
        #expect(thresholds.first?["threshold"] as? String == "failures < 50%" && thresholds.first?["held"] as? Bool == true)
        let failed = try #require(ticks.first { $0["status"] as? String == "failed" })
        #expect(failed["exit"] as? Int == 1 && failed["latencySeconds"] is Double && failed["attempt"] as? Int == 1)
    }

    @Test("--events are written while the run goes (a second at most), and an interrupted run still ends with run-end")
    func eventsWhileRunning() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write(
            "test.workflow",
            """
            workflow "long"
            first: log "started"
            wait: sh "sleep 60"
            """)
        let run = try RunningBinary(["--events", "events.jsonl", "--color", "never", "test.workflow"], in: space.folder)
        // A few lines, far from filling the buffer: only the timer writes them.
        let deadline = ContinuousClock.now + .seconds(60)
        while !(space.read("events.jsonl") ?? "").contains("\"id\":\"wait\""), run.process.isRunning, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        let early = try Self.events(space.read("events.jsonl") ?? "")
        #expect(early.map { $0["event"] as? String ?? "?" } == ["run-start", "step-start", "step-end", "step-start"], "\(early)")
        run.send(SIGTERM)
        #expect(try await run.waitForExit(timeout: .seconds(60)) == 143)
        let events = try Self.events(try #require(space.read("events.jsonl")))
        let end = try #require(events.last)
        #expect(end["event"] as? String == "run-end" && end["status"] as? String == "interrupted" && end["exitCode"] as? Int == 143)
        #expect(events.contains { $0["event"] as? String == "step-end" && $0["id"] as? String == "wait" && $0["status"] as? String == "cancelled" })
    }

    @Test("--events -: standard output carries the events alone; the console goes to standard error")
    func eventsOnStandardOutput() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let (run, _) = try await space.run(
            """
            workflow "piped"
            greet: log "hello from the console"
            work: sh "echo printed by the step"
            """, ["--events", "-"], killedAfter: 60)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let events = try Self.events(run.stdout)
        #expect(
            events.map { $0["event"] as? String ?? "?" }
                == ["run-start", "step-start", "step-end", "step-start", "step-end", "run-end"], "\(run.stdout)")
        #expect(run.stderr.contains("hello from the console") && run.stderr.contains("printed by the step"), "\(run.stderr)")
    }

    @Test("a secret never shows in the events: summaries, failure messages")
    func secretsMasked() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let token = "tok-\(UUID().uuidString)"
        let (run, _) = try await space.run(
            """
            workflow "secret-events"
            secret token = "\(token)"
            use: sh "echo {{token}} >/dev/null"
            fail: sh "echo {{token}} >&2; exit 3" {
              allow-failure
            }
            """, ["--events", "events.jsonl", "-v"], killedAfter: 60)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let text = try #require(space.read("events.jsonl"))
        #expect(!text.contains(token), "\(text)")
        #expect(text.contains("step-start") && text.contains("\"exit\":3"), "\(text)")
    }

    @Test("an address --metrics-listen cannot bind is exit 2 with the reason, before anything runs")
    func bindFailure() async throws {
        let space = try Workspace()
        defer { space.remove() }
        // A port another socket listens on.
        let (holder, port) = loopbackSocket()
        defer { close(holder) }
        try #require(listen(holder, 4) == 0)
        let (run, _) = try await space.run(
            """
            workflow "never"
            touch: sh "echo ran > ran.txt"
            """, ["--metrics-listen", "127.0.0.1:\(port)"], killedAfter: 30)
        #expect(run.status == 2)
        #expect(
            run.stderr.contains("promise-run: --metrics-listen: cannot listen on 127.0.0.1:\(port): Address already in use"),
            "\(run.stderr)")
        #expect(run.stderr.contains("nothing ran"))
        #expect(space.read("ran.txt") == nil)
        let (malformed, _) = try await space.run("workflow \"never\"\ntouch: sh \"true\"\n", ["--metrics-listen", "9464"], killedAfter: 30)
        #expect(malformed.status == 2 && malformed.stderr.contains("is not an address and a port"), "\(malformed.stderr)")
    }
}
