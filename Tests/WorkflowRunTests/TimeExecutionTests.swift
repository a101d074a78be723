import PromiseTestSupport
import Testing
import WorkflowTestSupport

@testable import PromiseEngine
@testable import WorkflowLanguage
@testable import WorkflowModel
@testable import WorkflowRun

@Suite("Executor: timeouts, retries, interrupts")
struct TimeExecutionTests {
    @Test("a step timeout cancels the work, fails with kind timeout, and ensure still runs")
    func stepTimeout() {
        let run = ExecutorHarness(
            """
            slow: sh "wait slow" {
              timeout 5s
            }
            ensure {
              log "cleanup"
            }
            """)
        run.clock.advance(by: .seconds(4))
        #expect(run.outcome == nil)
        run.clock.advance(by: .seconds(1))
        #expect(run.runner.events.events.contains("cancel slow"))
        #expect(run.outcome?.error?.kind == .timeout)
        #expect(run.outcome?.error?.message == "timed out after 5s")
        #expect(run.record("slow")?.status == .failed)
        #expect(run.observer.logs.events == ["cleanup"])
    }

    @Test("a group timeout cancels every child; none outlives the group's deadline")
    func groupTimeout() {
        let run = ExecutorHarness(
            """
            work: parallel {
              timeout 10s
              a: sh "wait a"
              b: sh "sleep 1m" {
                timeout 5m
              }
            }
            catch timeout {
              log "{{error.step}}: {{error.message}}"
            }
            """)
        run.clock.advance(by: .seconds(10))
        #expect(run.runner.events.events.contains("cancel a"))
        #expect(run.runner.events.events.contains("cancel b"))
        #expect(run.observer.logs.events == ["work: work timed out after 10s"])
        #expect(run.statuses.prefix(2) == ["a cancelled", "b cancelled"])
    }

    @Test("the workflow timeout applies to the whole body")
    func workflowTimeout() {
        let run = ExecutorHarness(
            """
            timeout 1m
            a: sh "wait a"
            """)
        run.clock.advance(by: .seconds(60))
        #expect(run.outcome?.status == .failed)
        #expect(run.outcome?.error?.kind == .timeout)
    }

    @Test("a timeout on a step with retry is per attempt")
    func timeoutPerAttempt() {
        let run = ExecutorHarness(
            """
            flaky: sh "wait flaky" {
              timeout 2s
              retry 2
            }
            """)
        run.clock.advance(by: .seconds(2))
        #expect(run.outcome == nil, "attempt 2 runs")
        run.runner.release("flaky")
        #expect(run.outcome?.status == .succeeded)
        #expect(run.record("flaky")?.attempts == 2)
    }

    @Test("retry N delay D runs again after failures, waiting D between attempts")
    func retryDelay() {
        let run = ExecutorHarness(
            """
            flaky: sh "exit 1" {
              retry 2 delay 3s
            }
            """)
        #expect(run.runner.events.events.filter { $0.hasPrefix("start") }.count == 1)
        run.clock.advance(by: .seconds(3))
        #expect(run.runner.events.events.filter { $0.hasPrefix("start") }.count == 2)
        run.clock.advance(by: .seconds(3))
        #expect(run.outcome?.status == .failed)
        #expect(run.record("flaky")?.attempts == 3)
    }

    @Test("retry backoff D waits D, 2D, 4D")
    func retryBackoff() {
        let run = ExecutorHarness(
            """
            flaky: sh "exit 1" {
              retry 3 backoff 1s
            }
            """)
        var starts: [Duration] = []
        var seen = 0
        for _ in 0..<20 {
            let now = run.runner.events.events.filter { $0.hasPrefix("start") }.count
            if now > seen {
                starts.append(run.clock.now())
                seen = now
            }
            run.clock.advance(by: .milliseconds(500))
        }
        #expect(starts == [.zero, .seconds(1), .seconds(3), .seconds(7)])
        #expect(run.record("flaky")?.attempts == 4)
    }

    @Test("retry on a group runs the whole group again")
    func groupRetry() {
        let run = ExecutorHarness(
            """
            deploy: sequence {
              retry 1
              step: sh "exit 1"
            }
            """)
        #expect(run.record("step")?.attempts == 2)
    }

    @Test("a step that fails and then succeeds in a group's retry is reported succeeded, without the old error")
    func groupRetryClearsTheFailure() {
        let run = ExecutorHarness(
            """
            deploy: sequence {
              retry 1
              step: sh "wait step"
            }
            """)
        run.runner.fail("step", exit: 3)
        run.runner.release("step")
        #expect(run.outcome?.status == .succeeded)
        let record = run.record("step")
        #expect(record?.status == .succeeded)
        #expect(record?.attempts == 2)
        #expect(record?.failure == nil)
        #expect(record?.exitCode == 0)
    }

    @Test("an interrupt cancels what runs, skips what has not started, runs ensures")
    func interrupt() {
        let run = ExecutorHarness(
            """
            a: sh "wait a"
            b: sh "ok"
            ensure {
              cleanup: sh "ok"
            }
            """)
        run.executor.interrupt()
        #expect(run.outcome?.status == .interrupted)
        #expect(run.statuses == ["a cancelled", "b skipped", "cleanup succeeded"])
    }

    @Test("--timeout stops the run as timed out, after ensures")
    func runTimeout() {
        let run = ExecutorHarness(
            """
            a: sh "wait a"
            ensure {
              log "cleanup"
            }
            """, timeout: .seconds(30))
        run.clock.advance(by: .seconds(30))
        #expect(run.outcome?.status == .timedOut)
        #expect(run.observer.logs.events == ["cleanup"])
    }

    @Test("a sleep step waits, and is cancelled by a timeout")
    func sleepStep() {
        let run = ExecutorHarness(
            """
            nap: sleep 10s {
              timeout 1s
            }
            """)
        run.clock.advance(by: .seconds(1))
        #expect(run.outcome?.error?.kind == .timeout)
    }
}

@Suite("Executor: values")
struct ValueExecutionTests {
    @Test("step fields, captures of earlier steps, variables, --var, env with default, filters")
    func interpolation() {
        let run = ExecutorHarness(
            """
            var who = "world"
            var greeting = "hello {{who}}"
            out: sh "echo  padded  "
            log "{{greeting}} [{{out.stdout | trim}}] {{env.HOME ?? "/none"}} {{env.USER_X}} {{who | shell}} {{who | json}} {{greeting | url}}"
            """, variables: ["who": "you"], environment: ["USER_X": "x"])
        #expect(run.observer.logs.events == [#"hello you [padded] /none x 'you' "you" hello%20you"#])
    }

    @Test("block-level env reaches the processes below it")
    func blockEnvironment() {
        let run = ExecutorHarness(
            """
            env MODE = "ci"
            probe: sh "env MODE"
            log "{{probe.stdout}}"
            """)
        #expect(run.observer.logs.events == ["ci"])
    }

    @Test("a missing environment variable is a reference failure pointing at the expression")
    func missingEnvironment() {
        let run = ExecutorHarness(
            """
            log "{{env.NOT_SET_ANYWHERE}}"
            """)
        #expect(run.outcome?.error?.kind == .reference)
        #expect(run.outcome?.error?.message.hasPrefix("test.workflow:1:6: environment variable 'NOT_SET_ANYWHERE' is not set") == true)
    }

    @Test("secrets are masked in logs, errors and step summaries")
    func secrets() {
        let run = ExecutorHarness(
            """
            secret token = "s3cr3t"
            log "token is {{token}}"
            fail "bad token {{token}}"
            """)
        #expect(run.observer.logs.events == ["token is ***"])
        #expect(run.outcome?.error?.message == "bad token ***")
        #expect(run.record("fail@3:1")?.failure?.message == "bad token ***")
    }
}
