import PromiseTestSupport
import Testing
import WorkflowTestSupport

@testable import PromiseEngine
@testable import WorkflowLanguage
@testable import WorkflowModel
@testable import WorkflowRun

@Suite("Executor: groups")
struct GroupExecutionTests {
    @Test("parallel starts every child at once and succeeds when all do")
    func parallelAll() {
        let run = ExecutorHarness(
            """
            parallel {
              a: sh "wait a"
              b: sh "wait b"
              c: sh "wait c"
            }
            """)
        #expect(run.runner.waitingNames == ["a", "b", "c"])
        run.runner.release("b")
        run.runner.release("a")
        #expect(run.outcome == nil)
        run.runner.release("c")
        #expect(run.outcome?.status == .succeeded)
    }

    @Test("parallel limit N runs at most N at once")
    func parallelLimit() {
        let run = ExecutorHarness(
            """
            parallel limit 2 {
              a: sh "wait a"
              b: sh "wait b"
              c: sh "wait c"
              d: sh "wait d"
            }
            """)
        #expect(run.runner.waitingNames == ["a", "b"])
        run.runner.release("a")
        #expect(run.runner.waitingNames == ["b", "c"])
        run.runner.release("b")
        run.runner.release("c")
        run.runner.release("d")
        #expect(run.outcome?.status == .succeeded)
        #expect(run.runner.peakConcurrency == 2)
    }

    @Test("-j limits process steps across groups; a waiting step has not started")
    func jobsLimit() {
        let run = ExecutorHarness(
            """
            parallel {
              a: sh "wait a"
              b: sh "wait b"
              c: sh "wait c"
            }
            """, jobs: 2)
        #expect(run.runner.waitingNames == ["a", "b"])
        #expect(run.executor.recorder.status(of: "c") == .pending)
        run.runner.release("a")
        run.runner.release("b")
        run.runner.release("c")
        #expect(run.outcome?.status == .succeeded)
        #expect(run.runner.peakConcurrency == 2)
    }

    @Test("fail-fast: the first failure cancels running siblings, unstarted ones are skipped, the group fails with it")
    func failFast() {
        let run = ExecutorHarness(
            """
            parallel limit 2 {
              a: sh "wait a"
              b: sh "wait b"
              c: sh "wait c"
            }
            """)
        run.runner.fail("b", exit: 9)
        #expect(run.runner.events.events.contains("cancel a"))
        #expect(run.outcome?.status == .failed)
        #expect(run.outcome?.error?.stepID == "b")
        #expect(run.statuses == ["a cancelled", "b failed", "c skipped"])
    }

    @Test("fail-fast with -j: steps still waiting for a slot are skipped, never started, when a sibling fails")
    func failFastWithQueuedSteps() {
        let run = ExecutorHarness(
            """
            parallel {
              a: sh "wait a"
              b: sh "wait b"
              c: sh "wait c"
            }
            """, jobs: 1)
        #expect(run.runner.waitingNames == ["a"])
        run.runner.fail("a", exit: 1)
        #expect(!run.runner.events.events.contains("start b"))
        #expect(!run.runner.events.events.contains("start c"))
        #expect(run.statuses == ["a failed", "b skipped", "c skipped"])
        #expect(run.executor.processSlots.inUse == 0)
    }

    @Test("keep-going: every child runs to its end; the group fails afterwards with all failures")
    func keepGoing() {
        let run = ExecutorHarness(
            """
            parallel keep-going {
              a: sh "exit 1"
              b: sh "wait b"
              c: sh "exit 2"
            }
            """)
        #expect(run.outcome == nil)
        run.runner.release("b")
        #expect(run.outcome?.status == .failed)
        #expect(run.statuses == ["a failed", "b succeeded", "c failed"])
        #expect(run.outcome?.error?.stepID == "a")
        #expect(run.outcome?.error?.others.map(\.stepID) == ["c"])
        #expect(run.outcome?.error?.message.contains("2 steps of parallel@1:1 failed") == true)
    }

    @Test("--keep-going makes every parallel group keep going")
    func globalKeepGoing() {
        let run = ExecutorHarness(
            """
            parallel {
              a: sh "exit 1"
              b: sh "ok"
            }
            """, keepGoing: true)
        #expect(run.statuses == ["a failed", "b succeeded"])
    }

    @Test("race: the first to finish decides and the others are cancelled")
    func race() {
        let run = ExecutorHarness(
            """
            race {
              slow: sh "wait slow"
              fast: sh "wait fast"
            }
            after: sh "ok"
            """)
        run.runner.release("fast")
        #expect(run.runner.events.events.contains("cancel slow"))
        #expect(run.outcome?.status == .succeeded)
        #expect(run.statuses == ["slow cancelled", "fast succeeded", "after succeeded"])
    }

    @Test("race: a first failure decides too")
    func raceFailure() {
        let run = ExecutorHarness(
            """
            race {
              slow: sh "wait slow"
              broken: sh "exit 3"
            }
            """)
        #expect(run.outcome?.error?.stepID == "broken")
        #expect(run.statuses == ["slow cancelled", "broken failed"])
    }

    @Test("any: the first success wins; failures before it do not count")
    func anyFirstSuccess() {
        let run = ExecutorHarness(
            """
            any {
              broken: sh "exit 1"
              mirror1: sh "wait m1"
              mirror2: sh "wait m2"
            }
            """)
        run.runner.release("m2")
        #expect(run.outcome?.status == .succeeded)
        #expect(run.statuses == ["broken failed", "mirror1 cancelled", "mirror2 succeeded"])
    }

    @Test("any fails only when all fail")
    func anyAllFail() {
        let run = ExecutorHarness(
            """
            any {
              a: sh "exit 1"
              b: sh "exit 2"
            }
            """)
        #expect(run.outcome?.status == .failed)
        #expect(run.outcome?.error?.message.hasPrefix("every lane of any@1:1 failed") == true)
    }

    @Test("needs: a child starts after its siblings succeeded; a failed need skips it")
    func needs() {
        let run = ExecutorHarness(
            """
            parallel keep-going {
              build: sh "wait build"
              lint: sh "wait lint"
              test: sh "ok" {
                needs build
              }
              deploy: sh "ok" {
                needs test lint
              }
            }
            """)
        #expect(run.runner.waitingNames == ["build", "lint"])
        run.runner.release("build")
        #expect(run.executor.recorder.status(of: "test") == .succeeded)
        run.runner.fail("lint")
        #expect(run.statuses == ["build succeeded", "lint failed", "test succeeded", "deploy skipped"])
    }

    @Test("foreach runs the body per item in order, with local labels reported as label[i]")
    func foreachSequential() {
        let run = ExecutorHarness(
            """
            foreach name in ["a", "b", "c"] {
              greet: sh "echo hi-{{name}}"
              log "{{greet.stdout}}"
            }
            """)
        #expect(run.observer.logs.events == ["hi-a", "hi-b", "hi-c"])
        #expect(run.statuses.filter { $0.hasPrefix("greet") } == ["greet[0] succeeded", "greet[1] succeeded", "greet[2] succeeded"])
        #expect(run.runner.peakConcurrency == 1)
    }

    @Test("a sequential foreach stops at the first failing iteration")
    func foreachStops() {
        let run = ExecutorHarness(
            """
            foreach code in ["0", "3", "0"] {
              step: sh "exit {{code}}"
            }
            """)
        #expect(run.statuses == ["step[0] succeeded", "step[1] failed", "step[2] skipped"])
    }

    @Test("foreach parallel limit N runs iterations as a parallel group")
    func foreachParallel() {
        let run = ExecutorHarness(
            """
            foreach n in range(1, 5) parallel limit 2 {
              job: sh "wait {{n}}"
            }
            """)
        #expect(run.runner.waitingNames == ["1", "2"])
        for name in ["1", "2", "3", "4", "5"] { run.runner.release(name) }
        #expect(run.outcome?.status == .succeeded)
        #expect(run.runner.peakConcurrency == 2)
        #expect(run.statuses.count == 5)
    }

    @Test("foreach over split lines of an earlier step's output")
    func foreachSplit() {
        let run = ExecutorHarness(
            """
            ls: sh "echo one"
            foreach line in split("{{ls.stdout}}") {
              log "got {{line}}"
            }
            """)
        #expect(run.observer.logs.events == ["got one"])
    }

    @Test("a foreach that never runs reports its body once, skipped")
    func foreachSkipped() {
        let run = ExecutorHarness(
            """
            a: sh "exit 1"
            foreach n in range(1, 3) {
              body: sh "ok"
            }
            """)
        #expect(run.statuses == ["a failed", "body skipped"])
    }
}
