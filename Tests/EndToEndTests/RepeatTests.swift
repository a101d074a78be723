import Foundation
import Testing

/// `repeat N [parallel [limit N] [keep-going]] { }` (spec §16): the body N
/// times, `{{repeat.index}}` from 0, statistics per label; its mistakes at
/// file:line:col.
@Suite("End to end: repeat")
struct RepeatTests {
    @Test("the body N times, in parallel with a limit; {{repeat.index}} counts from 0; statistics count every run")
    func runs() throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try space.run("""
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
        #expect(((run.report?["stats"] as? [String: Any])?["say"] as? [String: Any])?["count"] as? Int == 6)
        #expect(run.step("say[5]")?["status"] as? String == "succeeded")
        let graph = try Binary.run(["graph", "test.workflow"], in: space.folder)
        #expect(graph.stdout.contains("repeat 6  [parallel, limit 2]"), "\(graph.stdout)")
    }

    @Test("a missing or zero count, 'repeat for', and {{repeat.index}} outside a repeat: errors that say where and what to write")
    func mistakes() throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("bad.workflow", """
        workflow "bad"
        repeat for 10s {
          log "x"
        }
        repeat 0 { log "y" }
        log "{{repeat.index}}"
        """)
        let check = try Binary.run(["check", "--color", "never", "bad.workflow"], in: space.folder)
        #expect(check.status == 2)
        #expect(check.stderr.contains("bad.workflow:2:8: error: 'repeat for DURATION' is not supported yet; give a count"), "\(check.stderr)")
        #expect(check.stderr.contains("bad.workflow:5:8: error: expected how many times after 'repeat'"), "\(check.stderr)")
        #expect(check.stderr.contains("bad.workflow:6:6: error: '{{repeat.index}}' is the iteration's number inside a 'repeat' block"),
                "\(check.stderr)")
    }
}
