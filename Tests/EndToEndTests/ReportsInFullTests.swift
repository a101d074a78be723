import Foundation
import Testing

/// Reports in full (docs/reports.md): timeouts are failures in every report,
/// output tails and attempts, rendered log messages, the Markdown summary and
/// `$GITHUB_STEP_SUMMARY`, each read as its consumer reads it.
@Suite("End to end: reports in full")
struct ReportsInFullTests {
    @Test("a group that times out is a failure of kind timeout in JSON, JUnit, Markdown and HTML")
    func groupTimeout() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(
            """
            workflow "slow"
            first: sh "echo ready"
            checks: parallel {
              timeout 300ms
              a: sh "sleep 30"
              b: sh "sleep 30"
            }
            """, ["--report", "junit=junit.xml", "--report", "markdown=summary.md", "--report", "html=page.html"])
        #expect(run.status == 1)
        let error = try #require(run.report?["error"] as? [String: Any])
        #expect(error["step"] as? String == "checks")
        #expect(error["kind"] as? String == "timeout")
        let groups = try #require(run.report?["groups"] as? [[String: Any]])
        let checks = try #require(groups.first { $0["id"] as? String == "checks" })
        #expect(checks["kind"] as? String == "parallel")
        #expect(checks["status"] as? String == "failed")
        #expect((checks["error"] as? [String: Any])?["kind"] as? String == "timeout")
        #expect(run.step("a")?["group"] as? String == "checks")

        let shape = try JUnitShape.read(space)
        #expect(shape.failures == 1, "the timeout counts as a failure")
        #expect(shape.testcase("checks")?.outcome == "failure")
        #expect(shape.testcase("checks")?.failureType == "timeout")
        #expect(shape.testcase("a")?.outcome == "skipped")

        let markdown = MarkdownShape(try #require(space.read("summary.md")))
        #expect(markdown.problems.isEmpty, "\(markdown.problems)")
        #expect(markdown.headings.contains { $0.contains("checks") && $0.contains("timeout") })
        #expect(markdown.blocks.contains { $0.contains("checks timed out after 300ms") })

        let page = try #require(space.read("page.html"))
        #expect(page.contains("\"failureKind\":\"timeout\""))
    }

    @Test("GitHub annotations name a group's timeout at the group's line")
    func groupTimeoutAnnotation() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(
            """
            first: sh "true"
            checks: parallel {
              timeout 200ms
              a: sh "sleep 30"
            }
            """, environment: ["GITHUB_ACTIONS": "true"])
        #expect(run.status == 1)
        #expect(run.stdout.contains("::error file=test.workflow,line=2,col=1,title=checks failed (timeout)::checks timed out after 200ms"))
    }

    @Test("--timeout: exit 124, and the run's timeout is a JUnit failure and the JSON error")
    func runTimeout() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(
            """
            workflow "wait"
            a: sh "sleep 30"
            """, ["--timeout", "300ms", "--report", "junit=junit.xml"])
        #expect(run.status == 124)
        #expect(run.report?["status"] as? String == "failed", "a run --timeout stopped is failed (its error says timeout)")
        let error = try #require(run.report?["error"] as? [String: Any])
        #expect(error["kind"] as? String == "timeout")
        #expect((error["message"] as? String)?.contains("--timeout") == true)
        let shape = try JUnitShape.read(space)
        #expect(shape.failures == 1)
        #expect(shape.testcase("wait")?.failureType == "timeout")
    }

    @Test("the workflow's own timeout: exit 1, a JUnit failure named after the workflow, kind timeout")
    func workflowTimeout() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(
            """
            workflow "deadline"
            timeout 300ms
            a: sh "sleep 30"
            """, ["--report", "junit=junit.xml"])
        #expect(run.status == 1)
        #expect((run.report?["error"] as? [String: Any])?["kind"] as? String == "timeout")
        let shape = try JUnitShape.read(space)
        #expect(shape.failures == 1)
        #expect(shape.testcase("deadline")?.failureType == "timeout")
    }

    @Test("a step's own timeout is a failure of kind timeout in JUnit")
    func stepTimeout() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(
            """
            a: sh "sleep 30" { timeout 200ms }
            """, ["--report", "junit=junit.xml"])
        #expect(run.status == 1)
        let shape = try JUnitShape.read(space)
        #expect(shape.failures == 1)
        #expect(shape.testcase("a")?.failureType == "timeout")
    }

    @Test("every process step's stdout and stderr tails, in JSON and in JUnit system-out/system-err")
    func outputTails() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(
            """
            ok: sh "echo to-stdout; echo to-stderr >&2"
            long: sh "seq 1 20000"
            """, ["--report", "junit=junit.xml", "--report-output", "2"])
        #expect(run.status == 0)
        let ok = try #require(run.step("ok")?["output"] as? [String: Any])
        #expect((ok["stdout"] as? [String: Any])?["tail"] as? String == "to-stdout\n")
        #expect((ok["stderr"] as? [String: Any])?["tail"] as? String == "to-stderr\n")
        let long = try #require((run.step("long")?["output"] as? [String: Any])?["stdout"] as? [String: Any])
        let tail = try #require(long["tail"] as? String)
        #expect(tail.utf8.count <= 2048, "--report-output 2 keeps 2 KiB")
        #expect(tail.hasSuffix("19999\n20000\n"))
        #expect(long["truncated"] as? Bool == true)
        #expect((long["bytes"] as? Int ?? 0) > 100_000)

        let shape = try JUnitShape.read(space)
        #expect(shape.testcase("ok")?.out == "to-stdout\n")
        #expect(shape.testcase("ok")?.err == "to-stderr\n")
        #expect(shape.testcase("long")?.out.hasSuffix("20000\n") == true)
    }

    @Test("--report-output 0 keeps no output in the reports")
    func noOutput() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(
            """
            ok: sh "echo to-stdout"
            """, ["--report-output", "0"])
        #expect(run.status == 0)
        #expect(run.step("ok")?["output"] == nil)
    }

    @Test("a retried step keeps every attempt: when, how long, how it ended and why, with the failed attempt's stderr")
    func attempts() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(
            """
            flaky: sh "test -f marker || { touch marker; echo first-attempt-broke >&2; exit 3; }" { retry 2 }
            """, ["--report", "junit=junit.xml", "--report", "markdown=summary.md"])
        #expect(run.status == 0)
        let flaky = try #require(run.step("flaky"))
        #expect(flaky["attempts"] as? Int == 2)
        let log = try #require(flaky["attemptLog"] as? [[String: Any]])
        #expect(log.count == 2)
        #expect(log[0]["number"] as? Int == 1)
        #expect(log[0]["status"] as? String == "failed")
        #expect(log[0]["exit"] as? Int == 3)
        #expect((log[0]["startedAt"] as? String)?.contains("T") == true)
        #expect(log[0]["durationSeconds"] is Double)
        let error = try #require(log[0]["error"] as? [String: Any])
        #expect(error["kind"] as? String == "exit")
        #expect((error["stderrTail"] as? String)?.contains("first-attempt-broke") == true)
        #expect(log[1]["status"] as? String == "succeeded")
        let shape = try JUnitShape.read(space)
        #expect(shape.testcase("flaky")?.out.contains("attempt 1: failed") == true)
        #expect(shape.testcase("flaky")?.out.contains("first-attempt-broke") == true)
        #expect(shape.testcase("flaky")?.out.contains("attempt 2: succeeded") == true)
    }

    @Test("log steps show the message as printed, values filled in")
    func logMessages() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(
            """
            var who = "world"
            greet: log "hello {{who}}"
            """, ["--report", "junit=junit.xml", "--report", "markdown=summary.md"])
        #expect(run.status == 0)
        #expect(run.step("greet")?["message"] as? String == "hello world")
        #expect(try JUnitShape.read(space).testcase("greet")?.out == "hello world\n")
        let markdown = MarkdownShape(try #require(space.read("summary.md")))
        #expect(markdown.tables.first?.contains { $0.contains("hello world") } == true)
    }

    @Test("markdown: status, failures with their output tails, a table of steps; appended to GITHUB_STEP_SUMMARY")
    func markdown() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("step-summary.md", "## an earlier step's summary\n\n")
        let run = try await space.run(
            """
            workflow "ci"
            build: sh "echo built"
            parallel keep-going {
              unit: sh "echo 'assertion | failed: 1 != 2' >&2; echo '```' >&2; exit 1"
              lint: sh "true"
            }
            """, ["--report", "markdown=out/summary.md"], environment: ["GITHUB_STEP_SUMMARY": space.path("step-summary.md")])
        #expect(run.status == 1)
        let text = try #require(space.read("out/summary.md"))
        let markdown = MarkdownShape(text)
        #expect(markdown.problems.isEmpty, "\(markdown.problems)")
        #expect(markdown.headings.first?.contains("ci: failed") == true)
        #expect(markdown.headings.contains { $0.contains("Failures") })
        #expect(
            markdown.blocks.contains { $0.contains("assertion | failed") && $0.contains("```") },
            "the stderr tail, in a fence its backticks cannot close")
        let table = try #require(markdown.tables.first)
        #expect(table.count == 4, "a header and the three steps")
        #expect(table.dropFirst().map { $0.first ?? "" } == ["`build`", "`unit`", "`lint`"])
        let summary = try #require(space.read("step-summary.md"))
        #expect(summary.hasPrefix("## an earlier step's summary\n\n"), "what was there stays")
        #expect(summary.contains("ci: failed"))
        #expect(MarkdownShape(summary).problems.isEmpty)
    }

    @Test("html: no script or address in the data can end the data block or reach the network")
    func htmlDataIsInert() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(
            """
            bad: sh "echo '</script><script>alert(1)</script>'; echo '<img src=http://127.0.0.1:9/x>'"
            """, ["--report", "html=page.html"])
        #expect(run.status == 0)
        let page = try #require(space.read("page.html"))
        #expect(page.components(separatedBy: "</script>").count - 1 == 2, "only the page's own two script blocks end")
        #expect(!page.contains("<img"))
        for reference in ["src=\"", "href=", "<link", "@import", "url("] {
            #expect(!page.contains(reference), "nothing to fetch: found \(reference)")
        }
    }
}
