import Foundation
import Testing

/// `repeat N [parallel [limit N] [keep-going]] { }`: the body N
/// times, `{{repeat.index}}` from 0, statistics per label; its mistakes at
/// file:line:col.
/// See docs/language.md, 'Load'.
@Suite("End to end: repeat")
struct RepeatTests {
    @Test("the body N times, in parallel with a limit; {{repeat.index}} counts from 0; statistics count every run")
    func runs() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(
            """
            workflow "again"
            repeat 6 parallel limit 2 {
              say: log "i={{repeat.index}}"
            }
            repeat 2 {
              repeat 2 {
                log "inner={{repeat.index}}"
              }
            }
            """)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(Set(run.logLines(prefix: "i=")) == Set((0..<6).map { "i=\($0)" }))
        #expect(run.logLines(prefix: "inner=") == ["inner=0", "inner=1", "inner=0", "inner=1"])
        #expect(run.stats("say")?["count"] as? Int == 6)
        #expect(run.step("say[5]")?["status"] as? String == "succeeded")
        let graph = try await Binary.run(["graph", "test.workflow"], in: space.folder)
        #expect(graph.stdout.contains("repeat 6  [parallel, limit 2]"), "\(graph.stdout)")
    }

    @Test("repeat for D: one after another, no iteration starts after D; with a rate, exactly those due before D")
    func forDuration() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(
            """
            workflow "timed"
            repeat for 400ms {
              work: sleep 100ms
            }
            repeat for 1s parallel limit 4 rate 20/s {
              tick: log "t={{repeat.index}}"
            }
            """)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        // Iterations start at 0, 100, 200, 300 ms (and not at 400 ms):
        // four; a busy machine that stretches each to 150 ms or more leaves
        // time for fewer.
        let works = try #require(run.stats("work")?["count"] as? Int)
        #expect((2...4).contains(works), "\(works)")
        #expect(run.step("work[\(works)]") == nil)
        // Due at k/20 s for k/20 < 1: exactly 20, whatever the machine.
        #expect(run.stats("tick")?["count"] as? Int == 20)
        #expect(Set(run.logLines(prefix: "t=")) == Set((0..<20).map { "t=\($0)" }))
        let graph = try await Binary.run(["graph", "test.workflow"], in: space.folder)
        #expect(graph.stdout.contains("repeat for 400ms\n"), "\(graph.stdout)")
        #expect(graph.stdout.contains("repeat for 1s  [parallel, limit 4, rate 20/s, 20 iterations]"), "\(graph.stdout)")
    }

    @Test("a group's timeout cuts a repeat for: the running iteration is cancelled, the ensure runs")
    func timeoutCuts() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(
            """
            workflow "cut"
            sequence {
              timeout 300ms
              repeat for 1h {
                work: sleep 10s
              }
            }
            ensure {
              log "cleaned up"
            }
            """)
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.logLines(prefix: "cleaned") == ["cleaned up"])
        #expect(run.step("work[0]")?["status"] as? String == "cancelled")
        #expect(run.step("work[1]") == nil)
    }

    @Test("a missing or zero count or duration, and {{repeat.index}} outside a repeat: errors that say where and what to write")
    func mistakes() async throws {
        try await Workspace.expectCheckRefuses(
            """
            workflow "bad"
            repeat for 0s {
              log "x"
            }
            repeat 0 { log "y" }
            log "{{repeat.index}}"
            """,
            with: [
                "bad.workflow:2:12: error: 'repeat for' needs a duration above zero",
                "bad.workflow:5:8: error: expected how many times after 'repeat'",
                "bad.workflow:6:6: error: '{{repeat.index}}' is the iteration's number inside a 'repeat' block",
            ])
    }
}
