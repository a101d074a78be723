import PromiseTestSupport
import Testing
import WorkflowTestSupport

@testable import PromiseEngine
@testable import WorkflowLanguage
@testable import WorkflowModel
@testable import WorkflowRun

@Suite("Executor: blocks are promise chains")
struct ChainExecutionTests {
    @Test("statements run in order; a failure skips the rest; the run fails")
    func chainAndSkip() {
        let run = ExecutorHarness(
            """
            a: sh "ok"
            b: sh "exit 3"
            c: sh "ok"
            log "never"
            """)
        #expect(run.outcome?.status == .failed)
        #expect(run.statuses == ["a succeeded", "b failed", "c skipped", "log@4:1 skipped"])
        #expect(run.outcome?.error?.stepID == "b")
        #expect(run.outcome?.error?.kind == .exit)
        #expect(run.outcome?.error?.exitCode == 3)
        #expect(run.runner.events.events == ["start a", "end a", "start b", "end b"])
    }

    @Test("a catch handles the failure and the chain goes on; error fields are visible")
    func catchRecovers() {
        let run = ExecutorHarness(
            """
            b: sh "exit 2"
            skipped: sh "ok"
            catch {
              log "caught {{error.step}} {{error.kind}} {{error.exit}}: {{error.message}}"
            }
            after: sh "ok"
            """)
        #expect(run.outcome?.status == .succeeded)
        #expect(run.observer.logs.events == ["caught b exit 2: exit code 2, expected 0"])
        #expect(run.statuses.contains("skipped skipped"))
        #expect(run.statuses.contains("after succeeded"))
    }

    @Test("a catch does not run after success; its steps are reported skipped")
    func catchSkippedOnSuccess() {
        let run = ExecutorHarness(
            """
            a: sh "ok"
            catch {
              handler: sh "ok"
            }
            """)
        #expect(run.outcome?.status == .succeeded)
        #expect(run.statuses == ["a succeeded", "handler skipped"])
    }

    @Test("catch KIND handles only those kinds; others pass by")
    func catchKinds() {
        let run = ExecutorHarness(
            """
            b: sh "exit 1"
            catch timeout {
              log "wrong handler"
            }
            catch exit {
              log "right handler"
            }
            """)
        #expect(run.outcome?.status == .succeeded)
        #expect(run.observer.logs.events == ["right handler"])
    }

    @Test("rethrow fails the catch with the caught error; a failing step in a catch fails it with its own")
    func rethrowAndFailingCatch() {
        let rethrown = ExecutorHarness(
            """
            b: sh "exit 4"
            catch {
              log "cleanup"
              rethrow
            }
            """)
        #expect(rethrown.outcome?.status == .failed)
        #expect(rethrown.outcome?.error?.stepID == "b")
        #expect(rethrown.outcome?.error?.exitCode == 4)

        let own = ExecutorHarness(
            """
            b: sh "exit 4"
            catch {
              other: sh "exit 5"
            }
            """)
        #expect(own.outcome?.error?.stepID == "other")
    }

    @Test("ensure runs after success and after failure, and keeps the state")
    func ensureRuns() {
        let ok = ExecutorHarness(
            """
            a: sh "ok"
            ensure {
              log "cleanup"
            }
            """)
        #expect(ok.outcome?.status == .succeeded)
        #expect(ok.observer.logs.events == ["cleanup"])

        let failed = ExecutorHarness(
            """
            a: sh "exit 1"
            ensure {
              log "cleanup"
            }
            """)
        #expect(failed.outcome?.status == .failed)
        #expect(failed.observer.logs.events == ["cleanup"])
    }

    @Test("a failing ensure fails a succeeded chain; after a failure the first error stays and the second is kept")
    func ensureFailure() {
        let afterSuccess = ExecutorHarness(
            """
            a: sh "ok"
            ensure {
              e: sh "exit 7"
            }
            """)
        #expect(afterSuccess.outcome?.error?.stepID == "e")

        let afterFailure = ExecutorHarness(
            """
            a: sh "exit 1"
            ensure {
              e: sh "exit 7"
            }
            """)
        #expect(afterFailure.outcome?.error?.stepID == "a")
        #expect(afterFailure.outcome?.error?.others.map(\.stepID) == ["e"])
    }

    @Test("a catch covers earlier catches and ensures; an ensure after a catch sees the recovered state")
    func catchCoversEnsure() {
        let run = ExecutorHarness(
            """
            a: sh "ok"
            ensure {
              e: sh "exit 7"
            }
            catch {
              log "caught {{error.step}}"
            }
            ensure {
              log "final"
            }
            """)
        #expect(run.outcome?.status == .succeeded)
        #expect(run.observer.logs.events == ["caught e", "final"])
    }

    @Test("a failed block is a failed statement of the block around it")
    func nestedBlocks() {
        let run = ExecutorHarness(
            """
            outer: sequence {
              inner: sh "exit 1"
              never: sh "ok"
            }
            after: sh "ok"
            catch {
              log "{{error.step}}"
            }
            """)
        #expect(run.observer.logs.events == ["inner"])
        #expect(run.statuses == ["inner failed", "never skipped", "after skipped", "log@7:3 succeeded"])
    }

    @Test("if runs one branch; the other is reported skipped")
    func conditional() {
        let run = ExecutorHarness(
            """
            var mode = "fast"
            if "{{mode}}" == "fast" {
              quick: sh "ok"
            } else {
              slow: sh "ok"
            }
            if not exists "/definitely/not/here" {
              log "absent"
            }
            """)
        #expect(run.statuses.prefix(2) == ["quick succeeded", "slow skipped"])
        #expect(run.observer.logs.events == ["absent"])
    }

    @Test("a top-level var is a statement of the chain: it sees the steps before it")
    func topLevelVariableAfterAStep() {
        let run = ExecutorHarness(
            """
            ver: sh "echo 1.2.3"
            var version = "v{{ver.stdout}}"
            log "{{version}}"
            """)
        #expect(run.outcome?.status == .succeeded)
        #expect(run.observer.logs.events == ["v1.2.3"])
    }

    @Test("a top-level var that fails is the chain's failure: later steps skip, catch and ensure run")
    func failingTopLevelVariable() {
        let run = ExecutorHarness(
            """
            a: log "first"
            var home = "{{env.PROMISE_RUN_UNSET}}"
            b: sh "ok"
            catch {
              log "caught {{error.kind}}"
            }
            ensure {
              log "cleanup"
            }
            """)
        #expect(run.statuses.prefix(2) == ["a succeeded", "b skipped"])
        #expect(run.observer.logs.events == ["first", "caught reference", "cleanup"])
        #expect(run.outcome?.status == .succeeded)
    }

    @Test("--var replaces a top-level var's value where it stands")
    func overriddenTopLevelVariable() {
        let run = ExecutorHarness(
            """
            log "before"
            var mode = "{{env.PROMISE_RUN_UNSET}}"
            log "mode {{mode}}"
            """, variables: ["mode": "fast"])
        #expect(run.observer.logs.events == ["before", "mode fast"])
    }
}
