import Foundation
import Testing

/// Blocks as chains (docs/language.md, 'Statements') with real processes:
/// chains, skips, catch, rethrow, ensure.
@Suite("End to end: blocks as chains")
struct ChainEndToEndTests {
    @Test("a failure skips the rest; exit 1; the failure names the step, kind and cause with stderr")
    func chainAndSkip() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(
            """
            a: sh "echo one"
            b: sh "echo broken >&2; exit 3"
            c: sh "echo never"
            """)
        #expect(run.status == 1)
        #expect(run.statuses == ["a succeeded", "b failed", "c skipped"])
        #expect(run.step("b")?["exit"] as? Int == 3)
        #expect(run.stdout.contains("[a] one"))
        #expect(!run.stdout.contains("never"))
        #expect(run.stdout.contains("b (exit): expected exit 0, got 3"))
        #expect(run.stdout.contains("│ broken"))
    }

    @Test("catch, catch with kinds, rethrow, and the error fields")
    func catchKindsRethrow() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let recovered = try await space.run(
            """
            b: sh "exit 2"
            catch timeout {
              log "WRONG"
            }
            catch exit {
              log "LOG caught {{error.step}} {{error.kind}} {{error.exit}}"
            }
            after: sh "true"
            """)
        #expect(recovered.status == 0)
        #expect(recovered.logLines(prefix: "LOG") == ["LOG caught b exit 2"])
        #expect(!recovered.stdout.contains("WRONG"))

        let rethrown = try await space.run(
            """
            b: sh "exit 2"
            catch {
              log "LOG cleaning up"
              rethrow
            }
            """)
        #expect(rethrown.status == 1)
        #expect((rethrown.report?["error"] as? [String: Any])?["step"] as? String == "b")
    }

    @Test("ensure runs on success and on failure, and keeps the state")
    func ensureAlways() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let ok = try await space.run(
            """
            a: sh "true"
            ensure {
              file write "ensured.txt" "yes"
            }
            """)
        #expect(ok.status == 0)
        #expect(space.read("ensured.txt") == "yes")

        let failed = try await space.run(
            """
            a: sh "exit 1"
            ensure {
              file write "ensured2.txt" "yes"
            }
            """)
        #expect(failed.status == 1)
        #expect(space.read("ensured2.txt") == "yes")
    }

    @Test("if/else runs one branch; the other is reported skipped")
    func ifElse() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("marker", "x")
        let run = try await space.run(
            """
            if exists "marker" {
              yes: sh "true"
            } else {
              no: sh "true"
            }
            """)
        #expect(run.statuses == ["yes succeeded", "no skipped"])
    }
}

/// Groups (docs/language.md, 'Groups') with real processes.
@Suite("End to end: groups")
struct GroupEndToEndTests {
    @Test("parallel limit: at most N processes at once")
    func parallelLimit() async throws {
        let space = try Workspace()
        defer { space.remove() }
        // Each step records how many run with it, through a lock-free count of files.
        let step = #"sh "touch running.$$; ls running.* | wc -l >> counts; sleep 0.3; rm running.$$""#
        let run = try await space.run(
            """
            parallel limit 2 {
              a: \(step)
              b: \(step)
              c: \(step)
              d: \(step)
            }
            """)
        #expect(run.status == 0)
        let counts = (space.read("counts") ?? "").split(separator: "\n").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        #expect(counts.count == 4)
        #expect(counts.allSatisfy { $0 <= 2 })
    }

    @Test("-j 1 runs process steps one at a time even in a parallel group")
    func jobs() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let step = #"sh "touch running.$$; ls running.* | wc -l >> counts; sleep 0.2; rm running.$$""#
        let run = try await space.run(
            """
            parallel {
              a: \(step)
              b: \(step)
              c: \(step)
            }
            """, ["-j", "1"])
        #expect(run.status == 0)
        let counts = (space.read("counts") ?? "").split(separator: "\n").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        #expect(counts == [1, 1, 1])
    }

    @Test("fail-fast: the first failure kills running siblings; keep-going runs all")
    func failFastAndKeepGoing() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let fast = try await space.run(
            """
            parallel limit 2 {
              slow: sh "sleep 30"
              bad: sh "sleep 0.2; exit 4"
              later: sh "true"
            }
            """)
        #expect(fast.status == 1)
        #expect(fast.statuses == ["slow cancelled", "bad failed", "later skipped"])
        #expect((fast.step("slow")?["durationSeconds"] as? Double ?? 99) < 20)

        let going = try await space.run(
            """
            parallel keep-going {
              one: sh "exit 1"
              two: sh "sleep 0.3"
              three: sh "exit 2"
            }
            """)
        #expect(going.status == 1)
        #expect(going.statuses == ["one failed", "two succeeded", "three failed"])
    }

    @Test("fail-fast with -j: steps waiting for a slot never start once a sibling failed")
    func failFastWithQueuedSteps() async throws {
        for _ in 0..<3 {
            let space = try Workspace()
            defer { space.remove() }
            let run = try await space.run(
                """
                parallel {
                  test: sh "sleep 0.1; exit 1"
                  build: sh "touch started.build"
                  deploy: exec "touch" "started.deploy"
                }
                """, ["-j", "1"])
            #expect(run.status == 1)
            #expect(run.statuses == ["test failed", "build skipped", "deploy skipped"])
            #expect(space.read("started.build") == nil)
            #expect(space.read("started.deploy") == nil)
        }
    }

    @Test("race: the first to finish wins and the rest are killed; any: first success")
    func raceAndAny() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let race = try await space.run(
            """
            race {
              slow: sh "sleep 30"
              fast: sh "echo fast"
            }
            """)
        #expect(race.status == 0)
        #expect(race.statuses == ["slow cancelled", "fast succeeded"])

        // `works` ends 0.2 s after `broken` began to fail (on a busy
        // machine a plain `sleep 0.2` could end first, and `broken` would
        // be cancelled, not failed).
        let any = try await space.run(
            """
            any {
              broken: sh "touch broke; exit 1"
              works: sh "while [ ! -e broke ]; do sleep 0.01; done; sleep 0.2"
              slow: sh "sleep 30"
            }
            """)
        #expect(any.status == 0)
        #expect(any.statuses == ["broken failed", "works succeeded", "slow cancelled"])
    }

    @Test("needs: a DAG inside parallel, as in make")
    func needs() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(
            """
            parallel {
              link: sh "cat a.o b.o > app" {
                needs compileA compileB
              }
              compileA: sh "sleep 0.2; echo A > a.o"
              compileB: sh "echo B > b.o"
            }
            """)
        #expect(run.status == 0)
        #expect(space.read("app") == "A\nB\n")
    }

    @Test("foreach sequential and parallel, with per-iteration labels")
    func foreach() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("names.txt", "ann\n\nbob\ncid\n")
        let run = try await space.run(
            """
            foreach name in lines("names.txt") {
              greet: sh "echo hi-{{name}}"
              log "LOG {{greet.stdout}}"
            }
            foreach n in range(1, 4) parallel limit 2 {
              square: sh "echo $(({{n}} * {{n}}))"
            }
            """)
        #expect(run.status == 0)
        #expect(run.logLines(prefix: "LOG") == ["LOG hi-ann", "LOG hi-bob", "LOG hi-cid"])
        #expect(
            run.statuses.filter { $0.hasPrefix("square") } == [
                "square[0] succeeded", "square[1] succeeded", "square[2] succeeded", "square[3] succeeded",
            ])
    }
}

/// `{{label.duration}}` means what the console table and the reports mean:
/// the step's time over all its attempts.
@Suite("End to end: a retried step's duration")
struct RetriedDurationTests {
    @Test("{{label.duration}} covers every attempt and the delays between, as durationSeconds does")
    func durationOverAllAttempts() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(
            """
            flaky: sh "echo x >> tries; test $(wc -l < tries) -ge 3" {
              retry 3 delay 300ms
            }
            log "={{flaky.duration}}"
            """)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let logged = try #require(Double(run.logLines(prefix: "=").first?.dropFirst() ?? ""))
        let reported = try #require(run.step("flaky")?["durationSeconds"] as? Double)
        #expect(run.step("flaky")?["attempts"] as? Int == 3)
        // Two delays of 300 ms lie between the three attempts.
        #expect(logged >= 0.6, "\(logged)")
        // Both are taken at the one instant the step ended, whatever the
        // machine's load: equal to the report's millisecond.
        #expect(abs(logged - reported) < 0.002, "field \(logged) s, report \(reported) s")
    }
}
