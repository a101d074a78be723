import Testing

@testable import WorkflowRun

/// A step whose templates are all plain text is resolved once per node
/// (`constantSteps`); one with an expression every time; and an
/// iteration keeps its steps' results apart however many it stores.
@Suite("Steps resolved once, and results per iteration")
struct ResolveOnceTests {
    @Test("in a loop, a plain step runs as written each time, a templated one with each iteration's values")
    func plainAndTemplatedSteps() {
        let run = ExecutorHarness(
            """
            each: foreach n in ["0", "3", "0", "5"] {
              plain: sh "exit 0"
              code: sh "exit {{n}}" {
                allow-failure
              }
            }
            again: foreach n in ["7"] {
              plain2: sh "exit 0"
            }
            """)
        #expect(
            run.statuses.filter { $0.hasPrefix("code") }
                == ["code[0] succeeded", "code[1] failed", "code[2] succeeded", "code[3] failed"], "\(run.statuses)")
        #expect(run.record("code[1]")?.exitCode == 3)
        #expect(run.record("code[3]")?.exitCode == 5)
        #expect(run.statuses.filter { $0.hasPrefix("plain") }.allSatisfy { $0.hasSuffix("succeeded") })
        #expect(run.statuses.filter { $0.hasPrefix("plain") }.count == 5)
    }

    @Test("an iteration's first result and the ones after it are each read by their own label, in every iteration")
    func resultsOfSeveralLabels() {
        let run = ExecutorHarness(
            """
            each: foreach n in ["2", "4"] {
              a: sh "echo {{n}}"
              b: sh "echo 9"
              c: sh "exit {{a.stdout}}" {
                allow-failure
              }
              d: sh "exit {{b.stdout}}" {
                allow-failure
              }
            }
            """)
        #expect(run.record("c[0]")?.exitCode == 2, "\(run.statuses)")
        #expect(run.record("c[1]")?.exitCode == 4)
        #expect(run.record("d[0]")?.exitCode == 9)
        #expect(run.record("d[1]")?.exitCode == 9)
    }
}
