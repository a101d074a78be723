import Foundation
import Testing

/// Cancellation and the exit codes (docs/command.md) with real processes:
/// timeouts at each level, --timeout, and signals sent to the runner's pid
/// only. After each, no process of the workflow may remain.
@Suite("End to end: timeouts, signals, no orphans")
struct CancellationEndToEndTests {
    @Test("a step timeout kills the whole process group, fails with kind timeout, and ensure runs")
    func stepTimeout() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let sleep = try markedSleep(in: space.folder)
        let run = try await space.run(
            """
            slow: sh "\(sleep) 1000 & \(sleep) 1000" {
              timeout 500ms
            }
            ensure {
              file write "ensured.txt" "yes"
            }
            """)
        #expect(run.status == 1)
        let error = run.step("slow")?["error"] as? [String: Any]
        #expect(error?["kind"] as? String == "timeout")
        #expect(space.read("ensured.txt") == "yes")
        #expect(processes(containing: sleep).isEmpty)
    }

    @Test("a group timeout cancels every step inside it")
    func groupTimeout() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let sleep = try markedSleep(in: space.folder)
        let run = try await space.run(
            """
            work: parallel {
              timeout 500ms
              a: sh "\(sleep) 1000"
              b: sh "\(sleep) 1000"
            }
            catch timeout {
              log "LOG {{error.step}} {{error.kind}}"
            }
            """)
        #expect(run.status == 0)
        #expect(run.logLines(prefix: "LOG") == ["LOG work timeout"])
        #expect(run.statuses.prefix(2) == ["a cancelled", "b cancelled"])
        #expect(processes(containing: sleep).isEmpty)
    }

    @Test("a workflow timeout fails the run with kind timeout")
    func workflowTimeout() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(
            """
            timeout 500ms
            a: sh "sleep 30"
            """)
        #expect(run.status == 1)
        #expect((run.report?["error"] as? [String: Any])?["kind"] as? String == "timeout")
    }

    @Test("--timeout exits 124 after ensures, leaving no process")
    func runTimeout() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let sleep = try markedSleep(in: space.folder)
        let run = try await space.run(
            """
            a: sh "\(sleep) 1000"
            ensure {
              file write "ensured.txt" "yes"
            }
            """, ["--timeout", "500ms"])
        #expect(run.status == 124)
        #expect(run.report?["status"] as? String == "failed", "a run --timeout stopped is failed (its error says timeout)")
        #expect(space.read("ensured.txt") == "yes")
        #expect(processes(containing: sleep).isEmpty)
    }

    @Test("retry with delay, and backoff: attempts counted, the last error kept")
    func retries() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(
            """
            flaky: sh "echo x >> tries; test $(wc -l < tries) -ge 3" {
              retry 3 delay 100ms
            }
            never: sh "exit 5" {
              retry 2 backoff 50ms
            }
            """)
        #expect(run.status == 1)
        #expect(run.step("flaky")?["attempts"] as? Int == 3)
        #expect(run.step("flaky")?["status"] as? String == "succeeded")
        #expect(run.step("never")?["attempts"] as? Int == 3)
        #expect(run.step("never")?["exit"] as? Int == 5)
    }

    @Test("SIGINT, SIGTERM or SIGHUP to the runner's pid: processes killed, ensures run, reports written, 130/143/129")
    func signals() async throws {
        for (signal, code) in [(SIGINT, Int32(130)), (SIGTERM, Int32(143)), (SIGHUP, Int32(129))] {
            let space = try Workspace()
            defer { space.remove() }
            let sleep = try markedSleep(in: space.folder)
            try space.write(
                "test.workflow",
                """
                parallel {
                  a: sh "\(sleep) 1000 & \(sleep) 1000"
                  b: sh "trap '' TERM INT; \(sleep) 1000"
                  c: sh "echo READY; \(sleep) 1000"
                }
                ensure {
                  file write "ensured.txt" "yes"
                }
                """)
            let runner = try RunningBinary(
                [
                    "-j", "8", "--report", "json=report.json", "--report", "junit=junit.xml",
                    "--report", "markdown=report.md", "--report", "html=report.html",
                    "--color", "never", "test.workflow",
                ], in: space.folder)
            try await runner.waitForOutput("READY")
            runner.send(signal)
            let status = try await runner.waitForExit()
            #expect(status == code)
            #expect(space.read("ensured.txt") == "yes")
            #expect(space.read("report.json")?.contains("\"interrupted\"") == true)
            // Red in every report, as a --timeout is (docs/reports.md).
            let name = signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "SIGHUP"
            let junit = space.read("junit.xml") ?? ""
            #expect(junit.contains("failures=\"1\""), "\(junit)")
            #expect(junit.contains("<failure message=\"interrupted by \(name)\""), "\(junit)")
            #expect(space.read("report.json")?.contains("interrupted by \(name)") == true)
            #expect(space.read("report.md")?.contains("interrupted by \(name)") == true, "\(space.read("report.md") ?? "")")
            #expect(space.read("report.html")?.contains("interrupted by \(name)") == true)
            #expect(processes(containing: sleep).isEmpty, "processes left behind after signal \(signal)")
        }
    }

    @Test("a second SIGINT stops at once, still leaving no process")
    func secondSignal() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let sleep = try markedSleep(in: space.folder)
        try space.write(
            "test.workflow",
            """
            a: sh "echo READY; \(sleep) 1000"
            ensure {
              slow-cleanup: sh "\(sleep) 1000"
            }
            """)
        let runner = try RunningBinary(["--color", "never", "test.workflow"], in: space.folder)
        try await runner.waitForOutput("READY")
        runner.send(SIGINT)
        try await Task.sleep(for: .milliseconds(500))
        runner.send(SIGINT)
        let status = try await runner.waitForExit(timeout: .seconds(20))
        #expect(status == 130)
        #expect(processes(containing: sleep).isEmpty)
    }
}

/// Values (docs/language.md, 'Interpolation') with real processes: values,
/// filters, secrets.
@Suite("End to end: values and secrets")
struct ValuesEndToEndTests {
    @Test("step fields, vars, --var, env with default, filters")
    func interpolation() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(
            """
            var who = "world"
            out: sh "printf '  padded  \\n'"
            name: sh "printf '%s' \\"it's\\""
            log "LOG {{who}} [{{out.stdout | trim}}] {{env.E2E_SET}} {{env.E2E_UNSET ?? "dflt"}} {{who | url}} {{who | json}}"
            quoted: sh "printf %s {{name.stdout | shell}}"
            log "LOG {{quoted.stdout}} exit={{quoted.exit}}"
            """, ["--var", "who=a b"], environment: ["E2E_SET": "set"])
        #expect(run.status == 0, "\(run.stdout)")
        #expect(run.logLines(prefix: "LOG") == [#"LOG a b [padded] set dflt a%20b "a b""#, "LOG it's exit=0"])
    }

    @Test("secrets appear in no output, report or error message")
    func secretsMasked() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write(
            "test.workflow",
            """
            secret token = "tok-secret-42"
            a: sh "echo using {{token}}; echo {{token}} >&2; exit 1"
            catch {
              log "LOG {{error.message}} {{token | url}}"
              rethrow
            }
            """)
        let outcome = try await Binary.run(
            ["--report", "json=r.json", "--report", "junit=r.xml", "--report", "html=r.html", "--output", "prefixed", "test.workflow"],
            in: space.folder)
        #expect(outcome.status == 1)
        let everything = outcome.stdout + outcome.stderr + (space.read("r.json") ?? "") + (space.read("r.xml") ?? "") + (space.read("r.html") ?? "")
        #expect(!everything.contains("secret-42"))
        #expect(outcome.stdout.contains("***"))
    }

    @Test("secrets stay masked when quoted in messages, split into lines, filtered, or printed by graph")
    func secretsMaskedInEveryForm() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write(
            "test.workflow",
            #"""
            secret pw = 'Pa"ss\wordXYZ'
            secret key = """
              -----BEGIN TEST KEY-----
              AAAAsecretpartONE
              BBBBsecretpartTWO
              -----END TEST KEY-----
              """
            var auth = "user:{{pw}}"
            a: sh "printf '%s\\n' {{pw | shell}} >&2; printf '%s\\n' {{key | shell}}; exit 1"
            catch {
              log "LOG {{auth | url}} {{auth | json}} {{auth | shell}}"
              rethrow
            }
            """#)
        let outcome = try await Binary.run(
            ["--report", "json=r.json", "--report", "junit=r.xml", "--report", "html=r.html", "--output", "prefixed", "test.workflow"],
            in: space.folder)
        #expect(outcome.status == 1)
        let tree = try await Binary.run(["graph", "test.workflow"], in: space.folder)
        let json = try await Binary.run(["graph", "--format", "json", "test.workflow"], in: space.folder)
        let everything = [
            outcome.stdout, outcome.stderr, space.read("r.json") ?? "", space.read("r.xml") ?? "",
            space.read("r.html") ?? "", tree.stdout, json.stdout,
        ].joined(separator: "\n")
        #expect(!everything.contains("wordXYZ"))
        #expect(!everything.contains("secretpart"))
        #expect(outcome.stdout.contains("LOG "))
        #expect(tree.stdout.contains("secret pw = ***"))
    }

    @Test("a reference that cannot be resolved fails with kind reference at file:line:col")
    func referenceFailure() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(
            """
            log "{{env.PROMISE_RUN_SURELY_UNSET}}"
            """)
        #expect(run.status == 1)
        let error = run.report?["error"] as? [String: Any]
        #expect(error?["kind"] as? String == "reference")
        #expect((error?["message"] as? String)?.hasPrefix("test.workflow:1:6:") == true)
    }
}
