import Foundation
import Testing

/// Reports a CI job can trust (docs/reports.md): a failure the workflow
/// handled is no failure of the run; a run `--timeout` stopped is `failed`;
/// cancelled steps keep their output; report paths are checked before
/// anything runs; annotations name the file from the repository's root;
/// retries say why; `check --format json` notes have places; Markdown cells
/// show output as written. Each read as its consumer reads it, with
/// `GITHUB_ACTIONS=true` where a runner sets it.
@Suite("End to end: reports a CI job can trust")
struct TrustedReportsTests {
    @Test("failures an any, a catch or allow-failure handled: a green run, a passing JUnit case, a warning, apart in Markdown")
    func handledFailures() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let base = try await TestServers.plain()
        // The cookbook's "Race mirrors" with one mirror down, a failure a
        // catch handles, and one under allow-failure.
        let run = try await space.run(
            """
            workflow "mirrors"
            mirrors: any {
              down: http GET "http://127.0.0.1:9/tool.tar.gz" { timeout 5s }
              up: http GET "\(base)/hello" { timeout 5s }
            }
            sequence {
              probe: sh "echo probing; exit 4"
            }
            catch {
              log "=caught {{error.step}}"
            }
            lint: sh "exit 2" { allow-failure }
            """, ["--report", "junit=junit.xml", "--report", "markdown=summary.md", "--report", "html=page.html"],
            environment: ["GITHUB_ACTIONS": "true"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.report?["status"] as? String == "succeeded")
        #expect(run.step("down")?["status"] as? String == "failed")
        #expect((run.step("down")?["handledBy"] as? String)?.hasPrefix("any 'mirrors'") == true, "\(run.step("down") ?? [:])")
        #expect(run.step("probe")?["handledBy"] as? String == "catch at line 9")
        #expect(run.step("lint")?["handledBy"] as? String == "allow-failure")

        let shape = try JUnitShape.read(space)
        #expect(shape.failures == 0, "handled failures are not failures of the run")
        for id in ["down", "probe", "lint"] {
            let testcase = try #require(shape.testcase(id))
            #expect(testcase.outcome == nil, "\(id) passes: \(testcase)")
            #expect(testcase.err.contains("handled by"), "\(id): \(testcase.err)")
        }
        #expect(shape.testcase("probe")?.err.contains("failed (exit): expected exit 0, got 4") == true)

        #expect(!run.stdout.contains("::error"), "\(run.stdout)")
        #expect(
            run.stdout.contains("::warning file=test.workflow,line=3,col=3,title=down failed (network)%2C handled by any 'mirrors'"),
            "\(run.stdout)")

        let markdown = MarkdownShape(try #require(space.read("summary.md")))
        #expect(markdown.problems.isEmpty, "\(markdown.problems)")
        #expect(markdown.headings.contains("### Handled failures (not failures of the run)"))
        #expect(!markdown.headings.contains("### Failures"))
        let page = try #require(space.read("page.html"))
        #expect(page.contains("\"hb\":\"catch at line 9\""), "the page's step data says what handled it")
    }

    @Test("a rethrow whose failure a handler further out handled is handled too")
    func rethrowHandledFurtherOut() async throws {
        // The second mirror succeeds only after the first failed (on a busy
        // machine `true` could win first, and the first lane would be
        // cancelled, not failed).
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(
            """
            download: any {
              first: sequence {
                get: sh "exit 1"
                catch {
                  file write "failed.txt" "yes"
                  rethrow
                }
              }
              second: sh "while [ ! -e failed.txt ]; do sleep 0.01; done; sleep 0.2"
            }
            """, ["--report", "junit=junit.xml"], environment: ["GITHUB_ACTIONS": "true"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let shape = try JUnitShape.read(space)
        #expect(shape.failures == 0, "the any handled what the rethrow passed on")
        #expect(run.step("get")?["handledBy"] as? String == "any 'download' (another lane succeeded)")
        let rethrow = try #require(run.steps.first { $0["kind"] as? String == "rethrow" })
        #expect(rethrow["handledBy"] as? String == "any 'download' (another lane succeeded)")
        #expect(!run.stdout.contains("::error"), "\(run.stdout)")
    }

    @Test("a cancelled step's last words, printed as it stopped, are in its output tail")
    func lastWordsOfACancelledStep() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(
            """
            race {
              server: sh "trap 'echo shutting down; exit 0' TERM; echo serving; touch up; while true; do sleep 0.05; done"
              work: sh "while [ ! -e up ]; do sleep 0.01; done; sleep 0.2"
            }
            """)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let output = try #require(run.step("server")?["output"] as? [String: Any])
        #expect((output["stdout"] as? [String: Any])?["tail"] as? String == "serving\nshutting down\n")
    }

    @Test("an unhandled failure stays a JUnit failure and an ::error, beside a handled one")
    func unhandledStays() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(
            """
            lint: sh "exit 2" { allow-failure }
            build: sh "echo broken >&2; exit 1"
            """, ["--report", "junit=junit.xml"], environment: ["GITHUB_ACTIONS": "true"])
        #expect(run.status == 1)
        let shape = try JUnitShape.read(space)
        #expect(shape.failures == 1)
        #expect(shape.testcase("build")?.outcome == "failure")
        #expect(shape.testcase("lint")?.outcome == nil)
        #expect(run.stdout.contains("::error file=test.workflow,line=2,col=1,title=build failed (exit)::"), "\(run.stdout)")
        #expect(run.stdout.contains("::warning file=test.workflow,line=1,col=1,title=lint failed (exit)%2C handled by allow-failure"))
    }

    @Test("a run --timeout stopped is failed with kind timeout in JSON and HTML, exit 124")
    func timedOutRunIsFailed() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run("a: sh \"sleep 30\"", ["--timeout", "300ms", "--report", "html=page.html"])
        #expect(run.status == 124)
        #expect(run.report?["status"] as? String == "failed")
        let error = try #require(run.report?["error"] as? [String: Any])
        #expect(error["kind"] as? String == "timeout")
        #expect(space.read("page.html")?.contains("\"status\":\"failed\"") == true)
    }

    @Test("steps cancelled by a lost race, fail-fast or --timeout keep their output in every report")
    func cancelledStepsKeepOutput() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(
            """
            race {
              server: sh "echo serving on 8080; echo 'GET / 200' >&2; touch up; sleep 30"
              work: sh "while [ ! -e up ]; do sleep 0.01; done; sleep 0.2; echo done"
            }
            parallel {
              sibling: sh "echo sibling started; touch started; sleep 30"
              breaks: sh "while [ ! -e started ]; do sleep 0.01; done; sleep 0.2; exit 1"
            }
            """, ["--report", "junit=junit.xml", "--report", "markdown=summary.md", "--report", "html=page.html"])
        #expect(run.status == 1)
        for (id, stdout) in [("server", "serving on 8080\n"), ("sibling", "sibling started\n")] {
            #expect(run.step(id)?["status"] as? String == "cancelled")
            let output = try #require(run.step(id)?["output"] as? [String: Any], "\(id) has output tails")
            #expect((output["stdout"] as? [String: Any])?["tail"] as? String == stdout)
        }
        let serverErr = (run.step("server")?["output"] as? [String: Any])?["stderr"] as? [String: Any]
        #expect(serverErr?["tail"] as? String == "GET / 200\n")
        let shape = try JUnitShape.read(space)
        #expect(shape.testcase("server")?.out.contains("serving on 8080") == true)
        #expect(shape.testcase("server")?.err.contains("GET / 200") == true)
        let markdown = MarkdownShape(try #require(space.read("summary.md")))
        #expect(markdown.headings.contains("### Cancelled steps"))
        #expect(markdown.blocks.contains { $0.contains("serving on 8080") })
        #expect(space.read("page.html")?.contains("serving on 8080") == true)

        let timedOut = try await space.run("slow: sh \"echo before the deadline; sleep 30\"", ["--timeout", "2s"])
        #expect(timedOut.status == 124)
        let output = try #require(timedOut.step("slow")?["output"] as? [String: Any])
        #expect((output["stdout"] as? [String: Any])?["tail"] as? String == "before the deadline\n")
    }

    @Test("a report path that cannot be written stops the run before anything runs (exit 2)")
    func reportPathsCheckedFirst() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try FileManager.default.createDirectory(atPath: space.path("adir"), withIntermediateDirectories: true)
        try space.write("afile", "")
        for report in ["junit=adir", "junit=afile/j.xml"] {
            let run = try await space.run("a: sh \"touch ran\"", ["--report", report])
            #expect(run.status == 2, "\(report)")
            #expect(run.stderr.contains("--report \(report)"), "\(run.stderr)")
            #expect(run.stderr.contains("nothing ran"))
            #expect(!FileManager.default.fileExists(atPath: space.path("ran")), "\(report): nothing ran")
        }
        // Folders that do not exist yet are made.
        #expect(try await space.run("a: sh \"true\"", ["--report", "junit=new/deeper/j.xml"]).status == 0)
        #expect(space.read("new/deeper/j.xml") != nil)
    }

    @Test("a report that still cannot be written at the end makes the exit code non-zero")
    func reportFailingAtTheEnd() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run("a: sh \"rm -rf out && touch out\"", ["--report", "junit=out/junit.xml"])
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.stderr.contains("cannot write the junit report"), "\(run.stderr)")
    }

    @Test("annotations name the file from GITHUB_WORKSPACE when run from a folder inside it; check's too")
    func annotationsFromTheWorkspace() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("ci/ci.workflow", "ok: sh \"true\"\nbroken: sh \"exit 3\"\n")
        let environment = ["GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": space.folder.path]
        let run = try await Binary.run(["ci.workflow"], in: space.folder.appendingPathComponent("ci"), environment: environment)
        #expect(run.status == 1)
        #expect(run.stdout.contains("::error file=ci/ci.workflow,line=2,col=1,"), "\(run.stdout)")
        try space.write("ci/bad.workflow", "a: sh \"true\" {\n  timout 3s\n}\n")
        let check = try await Binary.run(["check", "bad.workflow"], in: space.folder.appendingPathComponent("ci"), environment: environment)
        #expect(check.status == 2)
        #expect(check.stdout.contains("::error file=ci/bad.workflow,line=2,col=3"), "\(check.stdout)")
        // Outside the workspace, the path stays as given.
        let outside = try await Binary.run(
            ["ci.workflow"], in: space.folder.appendingPathComponent("ci"),
            environment: ["GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": "/nowhere/else"])
        #expect(outside.stdout.contains("::error file=ci.workflow,line=2"), "\(outside.stdout)")
    }

    @Test("each retry line says why the attempt before failed")
    func retriesSayWhy() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let base = try await TestServers.plain()
        let run = try await space.run(
            """
            up: http GET "\(base)/status/503" {
              retry 2 delay 10ms
            }
            """)
        #expect(run.status == 1)
        #expect(run.stdout.contains("↻ up attempt 2: attempt 1 failed (http 503): expected status 200-399"), "\(run.stdout)")
        #expect(run.stdout.contains("↻ up attempt 3: attempt 2 failed (http 503)"), "\(run.stdout)")
        let flaky = try await space.run("flaky: sh \"echo not yet >&2; exit 7\" { retry 1 }")
        #expect(flaky.stdout.contains("↻ flaky attempt 2: attempt 1 failed (exit 7): expected exit 0, got 7"), "\(flaky.stdout)")
    }

    @Test("check --format json: the include note has a place of its own")
    func includeNoteHasAPlace() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("main.workflow", "a: sh \"true\"\ninclude \"lib/build.workflow\"\n")
        try space.write("lib/build.workflow", "b: sh \"y\" {\n  timout 3s\n}\n")
        let outcome = try await Binary.run(["check", "--format", "json", "main.workflow"], in: space.folder)
        let items = try #require(outcome.jsonObjects)
        let diagnostic = try #require(items.first)
        #expect(diagnostic["file"] as? String == "lib/build.workflow")
        let note = try #require((diagnostic["notes"] as? [[String: Any]])?.first)
        #expect(note["file"] as? String == "main.workflow")
        #expect(note["line"] as? Int == 2)
        #expect(note["column"] as? Int == 1)
    }

    @Test("Markdown: output with |, HTML and backticks stays in its table cell and shows as written")
    func markdownCellsShowOutputAsWritten() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(
            """
            log "a | b <img src=x onerror=alert(1)> ``` *bold*"
            bad: sh "echo 'x | <b>y</b>' >&2; exit 1" { allow-failure }
            """, ["--report", "markdown=summary.md"])
        #expect(run.status == 0)
        let text = try #require(space.read("summary.md"))
        let markdown = MarkdownShape(text)
        #expect(markdown.problems.isEmpty, "\(markdown.problems)")
        let rows = try #require(markdown.tables.first)
        #expect(rows.allSatisfy { $0.count == 4 }, "\(rows)")
        // In the details column, every markup character is escaped: no raw HTML.
        for cell in rows.dropFirst().map({ $0[3] }) {
            let characters = Array(cell)
            for (index, character) in characters.enumerated() where "<>`*".contains(character) {
                #expect(index > 0 && characters[index - 1] == "\\", "unescaped \(character) in the cell \(cell)")
            }
        }
        #expect(text.contains("\\<img src=x onerror=alert(1)\\>"), "\(text)")
        #expect(markdown.blocks.contains { $0.contains("x | <b>y</b>") }, "a fenced tail keeps the output as it is")
    }
}
