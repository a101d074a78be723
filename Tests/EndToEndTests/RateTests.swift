import Foundation
import Testing

/// `rate N/s` on `foreach ... parallel` and `repeat ... parallel`:
/// iterations start on a schedule, and latency runs from the
/// scheduled start, so a stall shows in the high percentiles.
@Suite("End to end: rate")
struct RateTests {
    private func startTimes(_ run: WorkflowRun, prefix: String) -> [Double] {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return run.steps.filter { ($0["id"] as? String)?.hasPrefix(prefix) == true }
            .compactMap { ($0["startedAt"] as? String).flatMap(formatter.date(from:))?.timeIntervalSince1970 }.sorted()
    }

    @Test("20 iterations at 100/s take their schedule (0.19 s), not the 20 ms they would take at once")
    func schedule() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(
            """
            workflow "paced"
            repeat 20 parallel limit 4 rate 100/s {
              tick: log "{{repeat.index}}"
            }
            """)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let times = startTimes(run, prefix: "tick[")
        #expect(times.count == 20)
        // The 20th is due 190 ms after the first; at once, all 20 would
        // start within about 20 ms. The first may start late when a busy
        // machine stalls the run as the group begins (a CI run saw the
        // first four at one moment, 30 ms late, the last on time: a span
        // of 157 ms), so the span is judged against the 20 ms, with room
        // for such a stall. That no iteration starts before it is due,
        // PacerTests and the ramp's test judge.
        #expect((times.last ?? 0) - (times.first ?? 0) >= 0.1, "\(times)")
        let graph = try await Binary.run(["graph", "test.workflow"], in: space.folder)
        #expect(graph.stdout.contains("repeat 20  [parallel, limit 4, rate 100/s]"), "\(graph.stdout)")
    }

    @Test("coordinated omission: with one stalled run, the runs queued behind it count their wait, so p90 shows the stall")
    func stallShows() async throws {
        let space = try Workspace()
        defer { space.remove() }
        // One slot, 50 a second: run 3 takes half a second, and the ones
        // due meanwhile wait for it. Their own work takes milliseconds.
        let run = try await space.run(
            """
            workflow "stall"
            repeat 30 parallel limit 1 rate 50/s {
              work: sh "if [ {{repeat.index}} = 3 ]; then sleep 0.5; fi"
            }
            """)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let latency = try #require(run.seconds("work", "latency"))
        #expect((latency["p90"] ?? 0) >= 0.25, "\(latency)")
        #expect((latency["max"] ?? 0) >= 0.45, "\(latency)")
    }

    @Test("a rate on a parallel group: its lanes start on the schedule, the k-th k/R s after the group starts")
    func lanes() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(
            """
            workflow "lanes"
            parallel rate 10/s {
              lane-a: log "a"
              lane-b: log "b"
              lane-c: log "c"
            }
            """)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let times = startTimes(run, prefix: "lane-")
        #expect(times.count == 3)
        #expect((times.last ?? 0) - (times.first ?? 0) >= 0.18, "\(times)")
        let graph = try await Binary.run(["graph", "test.workflow"], in: space.folder)
        #expect(graph.stdout.contains("parallel  [rate 10/s]"), "\(graph.stdout)")
    }

    /// The arrival times (seconds after the first) the test server noted for `key`.
    static func arrivals(_ space: Workspace, base: String, key: String, absolute: Bool = false) async throws -> [Double] {
        let run = try await space.run(
            """
            workflow "read"
            http GET "\(base)/arrivals?key=\(key)\(absolute ? "&absolute=1" : "")" { save "arrivals.json" }
            """)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let data = try #require(space.read("arrivals.json")?.data(using: .utf8))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [Double])
    }

    @Test("the server sees the schedule: no request arrives before it is due, as many as repeat N and repeat for D ask")
    func arrivalsAtTheServer() async throws {
        let base = try await TestServers.plain()
        let space = try Workspace()
        defer { space.remove() }
        let anchor = "anchor-\(UUID().uuidString)"
        let key = "even-\(UUID().uuidString)"
        let timed = "timed-\(UUID().uuidString)"
        let run = try await space.run(
            """
            workflow "even"
            http GET "\(base)/arrive?key=\(anchor)"
            repeat 50 parallel limit 8 rate 100/s {
              hit: http GET "\(base)/arrive?key=\(key)"
            }
            repeat for 1s parallel limit 4 rate 40/s {
              timed: http GET "\(base)/arrive?key=\(timed)"
            }
            """)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        // The schedule starts once the anchor's request has been answered,
        // so request k (due k/100 s after that start) reaches the server at
        // least k/100 s after the anchor did. A loaded machine makes requests
        // late, never early: this holds at any load, and a runner that sent
        // in bursts (or all at once) breaks it at once.
        let start = try #require(try await Self.arrivals(space, base: base, key: anchor, absolute: true).first)
        let times = try await Self.arrivals(space, base: base, key: key, absolute: true)
        try #require(times.count == 50)
        let early = times.enumerated().filter { $0.element < start + Double($0.offset) / 100 - 0.001 }
        let shown = early.map { "\($0.offset): \($0.element - start)" }.joined(separator: ", ")
        #expect(early.isEmpty, "arrived before they were due (index: seconds after the anchor): \(shown)")
        // Due at k/40 s for k/40 < 1: exactly 40 reach the server.
        #expect(try await Self.arrivals(space, base: base, key: timed).count == 40)
    }

    @Test("coordinated omission at the server: one request stalled for a second shows in p90 through the requests due behind it")
    func stalledServer() async throws {
        let base = try await TestServers.plain()
        let space = try Workspace()
        defer { space.remove() }
        let key = "stall-\(UUID().uuidString)"
        let run = try await space.run(
            """
            workflow "stall"
            repeat 40 parallel limit 1 rate 40/s {
              hit: http GET "\(base)/arrive?key=\(key)&stall=5&ms=1000"
            }
            """)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let latency = try #require(run.seconds("hit", "latency"))
        // Only one request was slow at the server; the 34 due during its
        // stall waited for the slot, and their latency says so.
        #expect((latency["p90"] ?? 0) >= 0.5, "\(latency)")
        #expect((latency["max"] ?? 0) >= 0.95, "\(latency)")
        #expect((latency["p50"] ?? 0) >= 0.1, "\(latency)")
        // The schedule's lateness says why: the requests due during the
        // stall started up to a second late.
        let lateness = try #require(run.seconds("hit", "lateness"))
        #expect((lateness["max"] ?? 0) >= 0.5, "\(lateness)")
    }

    @Test("a bad rate, and a rate on iterations that are not parallel, are errors with their place")
    func mistakes() async throws {
        try await Workspace.expectCheckRefuses(
            """
            workflow "bad"
            repeat 3 parallel rate fast {
              log "x"
            }
            repeat 3 rate 5/s {
              log "y"
            }
            repeat 3 parallel rate 20000000/s {
              log "z"
            }
            repeat 3 parallel rate 0/s {
              log "w"
            }
            repeat parallel rate 0/s ramp -5/s in 1s {
              log "v"
            }
            """,
            with: [
                "bad.workflow:2:24: error: expected a rate after 'rate', as in 'rate 500/s'",
                "bad.workflow:5:10: error: 'rate' applies to parallel iterations; write 'parallel rate ...'",
                // In range, and saying the range: not "expected a rate".
                "bad.workflow:8:24: error: a rate is at most 10000000/s, found '20000000/s'",
                "bad.workflow:11:24: error: a rate is above zero ('0/s' only as the start of a 'ramp'), found '0/s'",
                "bad.workflow:14:31: error: a rate is not negative, found '-5/s'",
            ])
    }
}
