import PromiseTestSupport
import Testing
import WorkflowTestSupport

@testable import WorkflowModel
@testable import WorkflowRun

/// The executor and `on-demand`: what is left out is skipped
/// with a message saying how to run it, and the chain goes on.
/// See docs/language.md, 'Incremental steps'.
@Suite("Executor: on-demand")
struct OnDemandExecutionTests {
    static let build = """
        clean: sh "ok" {
          on-demand
        }
        compile: sh "ok"
        install: sh "ok" {
          on-demand
        }
        after: sh "ok"
        """

    @Test("an ordinary run skips the on-demand steps, saying how to run them, and goes on; it succeeds")
    func ordinaryRun() {
        let run = ExecutorHarness(Self.build)
        #expect(run.outcome?.status == .succeeded)
        #expect(run.statuses == ["clean skipped", "compile succeeded", "install skipped", "after succeeded"])
        #expect(run.record("clean")?.message == "on demand: run it with promise-run test.workflow clean")
        #expect(run.runner.events.events.filter { $0.hasPrefix("start") } == ["start compile", "start after"])
    }

    @Test("named, an on-demand step runs with what comes before it; another on-demand step stays out")
    func named() {
        let run = ExecutorHarness(Self.build, targets: ["install"])
        #expect(run.statuses == ["clean skipped", "compile succeeded", "install succeeded", "after skipped"])
        #expect(run.record("after")?.message == "not selected")
        #expect(run.record("clean")?.message?.hasPrefix("on demand") == true)
        let first = ExecutorHarness(Self.build, targets: ["clean"])
        #expect(first.statuses == ["clean succeeded", "compile skipped", "install skipped", "after skipped"])
    }

    @Test("a group named runs without its on-demand steps; a race whose only lane is on demand ends well with nothing run")
    func groupsAndEmptyRaces() {
        let run = ExecutorHarness(
            """
            release: sequence {
              build: sh "ok"
              publish: sh "ok" {
                on-demand
              }
              tag: sh "ok"
            }
            """, targets: ["release"])
        #expect(run.statuses == ["build succeeded", "publish skipped", "tag succeeded"])
        let race = ExecutorHarness(
            """
            race {
              mirror: sh "ok" {
                on-demand
              }
            }
            next: sh "ok"
            """)
        #expect(race.outcome?.status == .succeeded)
        #expect(race.statuses == ["mirror skipped", "next succeeded"])
    }

    @Test("a lane that runs needs an on-demand sibling: it runs first; one nothing needs is skipped")
    func needs() {
        let run = ExecutorHarness(
            """
            parallel {
              gen: sh "wait gen" {
                on-demand
              }
              build: sh "ok" {
                needs gen
              }
              bench: sh "ok" {
                on-demand
              }
            }
            """)
        #expect(run.runner.waitingNames == ["gen"])
        run.runner.release("gen")
        #expect(run.statuses == ["gen succeeded", "build succeeded", "bench skipped"])
        #expect(run.record("bench")?.message?.hasPrefix("on demand") == true, "nothing needs it")
        #expect(run.outcome?.status == .succeeded)
    }
}
