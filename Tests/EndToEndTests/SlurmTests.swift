import Foundation
import Testing

/// Process steps on a real one-node Slurm cluster, started by
/// the tests on this machine (`.ci/slurm-cluster`).
/// See docs/language.md, 'Where process steps run: Slurm'.
@Suite("Slurm executor, end to end", .serialized, .enabled(if: SlurmCluster.shouldRun, SlurmCluster.skipReason))
struct SlurmTests {
    @Test("outputs, exit codes, captures, expect and retry come back as on this machine; reports name the executor and the job")
    func stepsRunAsJobs() async throws {
        let cluster = try await SlurmCluster.shared()
        let space = try Workspace()
        defer { space.remove() }
        let run = try await cluster.run(
            """
            executor slurm
            hello: sh "echo out; echo err >&2"
            args: exec "printf" "%s-%s" "a b" "c" {
              expect stdout == "a b-c"
              capture value = stdout matches '(.*)'
            }
            use: sh "echo got {{args.value}}"
            three: sh "exit 3" { expect exit 3 }
            input: sh "cat" { stdin "fed in" }
            flaky: sh "n=$(cat count 2>/dev/null || echo 0); echo $((n+1)) > count; test $n -ge 1" { retry 2 }
            here: sh "echo local" { executor local }
            """, in: space)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("[hello] out") && run.stdout.contains("[hello] err"))
        #expect(run.stdout.contains("[use] got a b-c"))
        #expect(!run.stdout.contains("srun:"), "srun's own lines stay out of the output: \(run.stdout)")
        let hello = try #require(run.step("hello"))
        #expect(hello["executor"] as? String == "slurm")
        let job = try #require(hello["slurmJob"] as? String)
        #expect(!job.isEmpty && job.allSatisfy(\.isNumber))
        let stderr = (hello["output"] as? [String: Any])?["stderr"] as? [String: Any]
        #expect(stderr?["tail"] as? String == "err\n")
        #expect(run.step("three")?["exit"] as? Int == 3)
        #expect(run.stdout.contains("[input] fed in"))
        #expect(run.step("flaky")?["attempts"] as? Int == 2)
        #expect(run.step("here")?["executor"] as? String == "local")
        #expect(run.step("here")?["slurmJob"] == nil)
        #expect(try await cluster.leftoverJobs().isEmpty)
        let junit = try await Binary.offPool {
            try Binary.run(["--report", "junit=report.xml", "test.workflow"], in: space.folder, environment: cluster.environment)
        }
        #expect(junit.status == 0)
        let xml = space.read("report.xml") ?? ""
        #expect(xml.contains("<system-out>ran on Slurm, job "), "\(xml)")
    }

    @Test("a parallel group of 16 steps at --slurm-jobs 4 never holds more than 4 jobs")
    func slurmJobsBound() async throws {
        let cluster = try await SlurmCluster.shared()
        let space = try Workspace()
        defer { space.remove() }
        var lanes = ""
        for index in 1...16 { lanes += "  s\(index): sh \"sleep 1\"\n" }
        try space.write("test.workflow", "executor slurm\nparallel {\n\(lanes)}\n")
        nonisolated(unsafe) let runner = try RunningBinary(
            ["--slurm-jobs", "4", "--report", "json=report.json", "test.workflow"],
            in: space.folder, environment: cluster.environment)
        // Sampled on a thread of its own: the shared pool may be busy.
        let counts = try await Binary.offPool { () throws -> [Int] in
            var counts: [Int] = []
            while runner.process.isRunning {
                // A job whose srun ended may linger as COMPLETING while
                // the next starts: it holds no slot of the run.
                counts.append(try cluster.jobs().filter { !$0.hasSuffix(" COMPLETING") }.count)
                usleep(30_000)
            }
            return counts
        }
        let most = counts.max() ?? 0
        let samples = counts.count
        let status = try await runner.waitForExit()
        #expect(status == 0, "\(runner.stdout)\(runner.stderr)")
        #expect(samples > 5)
        #expect(most >= 2 && most <= 4, "at most 4 jobs at once; saw \(most)")
        #expect(try await cluster.leftoverJobs().isEmpty)
    }

    @Test("a timeout cancels the job: the run ends with none queued or running")
    func timeoutCancelsTheJob() async throws {
        let cluster = try await SlurmCluster.shared()
        let space = try Workspace()
        defer { space.remove() }
        let run = try await cluster.run(
            """
            slow: sh "sleep 120" { executor slurm; timeout 2s }
            ensure {
              done: sh "echo ensured > ensured"
            }
            """, in: space, ["--report", "junit=junit.xml", "--report", "html=page.html"])
        #expect(run.status == 1)
        #expect(run.error(of: "slow")?["kind"] as? String == "timeout")
        #expect(space.read("ensured") == "ensured\n")
        #expect(try await cluster.leftoverJobs().isEmpty, "no job of the run is left")
        // The job id of the step that timed out, to ask sacct about it.
        let job = try #require(run.step("slow")?["slurmJob"] as? String, "\(run.step("slow") ?? [:])")
        #expect(!job.isEmpty && job.allSatisfy(\.isNumber))
        #expect(space.read("junit.xml")?.contains("ran on Slurm, job \(job)") == true)
        #expect(space.read("page.html")?.contains("Slurm, job \(job)") == true)
    }

    @Test("a lost race and a fail-fast group cancel their jobs while the run goes on")
    func lostRaceAndFailFast() async throws {
        let cluster = try await SlurmCluster.shared()
        let space = try Workspace()
        defer { space.remove() }
        // After each group, a local step counts this run's jobs still queued
        // or running (squeue reads SLURM_CONF from the environment).
        let count =
            "jobs=$(squeue --noheader --states=PENDING,RUNNING,SUSPENDED --format=%j) || exit 9; "
            + "echo \\\"$jobs\\\" | grep -c '^pr-' || true"
        // The local lanes end once the job's task has started (so srun has
        // said its job id), however long a loaded machine takes to get there.
        func started(_ name: String) -> String {
            "for i in $(seq 1200); do [ -e \(name) ] && break; sleep 0.1; done"
        }
        let run = try await cluster.run(
            """
            race {
              slow: sh "touch slow.started; sleep 120" { executor slurm }
              quick: sh "\(started("slow.started"))"
            }
            afterRace: sh "\(count)"
            sequence {
              parallel {
                long: sh "touch long.started; sleep 120" { executor slurm }
                broken: sh "\(started("long.started")); exit 1"
              }
              catch {
                afterFailure: sh "\(count)"
              }
            }
            """, in: space)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.step("slow")?["status"] as? String == "cancelled")
        #expect(run.step("long")?["status"] as? String == "cancelled")
        for id in ["slow", "long"] {
            #expect((run.step(id)?["slurmJob"] as? String)?.isEmpty == false, "a cancelled job's id is reported: \(id)")
        }
        #expect(run.stdout.contains("[afterRace] 0"), "\(run.stdout)")
        #expect(run.stdout.contains("[afterFailure] 0"), "\(run.stdout)")
    }

    @Test("a step's folder must exist: srun would run it in /tmp")
    func missingFolder() async throws {
        let cluster = try await SlurmCluster.shared()
        let space = try Workspace()
        defer { space.remove() }
        let run = try await cluster.run(
            """
            nowhere: sh "pwd" { executor slurm; cwd "no-such-folder" }
            """, in: space)
        #expect(run.status == 1)
        let error = try #require(run.error(of: "nowhere"))
        #expect(error["kind"] as? String == "spawn")
        #expect((error["message"] as? String)?.contains("does not exist") == true)
    }

    @Test(
        "SIGTERM or Ctrl-C (SIGINT) to the runner's pid cancels every job and still runs ensures",
        arguments: [(SIGTERM, Int32(143)), (SIGINT, Int32(130))])
    func signalCancelsJobs(signal: Int32, exitStatus: Int32) async throws {
        let cluster = try await SlurmCluster.shared()
        let space = try Workspace()
        defer { space.remove() }
        try space.write(
            "test.workflow",
            """
            executor slurm
            parallel {
              a: sh "sleep 120"
              b: sh "sleep 120"
              c: exec "sleep" "120"
            }
            ensure {
              done: sh "echo ensured > ensured" { executor local }
            }
            """)
        let runner = try RunningBinary(
            ["--report", "json=report.json", "test.workflow"], in: space.folder,
            environment: cluster.environment)
        let running = try await Binary.offPool { () throws -> Int in
            let deadline = ContinuousClock.now + .seconds(30)
            while try cluster.jobs().filter({ $0.hasSuffix("RUNNING") }).count < 3, ContinuousClock.now < deadline {
                usleep(50_000)
            }
            return try cluster.jobs().count
        }
        #expect(running == 3)
        runner.send(signal)
        let status = try await runner.waitForExit()
        #expect(status == exitStatus, "\(runner.stdout)\(runner.stderr)")
        #expect(space.read("ensured") == "ensured\n")
        let left = try await cluster.leftoverJobs()
        #expect(left.isEmpty, "no job of the run is left: \(left)")
    }

    @Test("a job the scheduler refuses fails with kind spawn and Slurm's message; one over its memory with kind signal")
    func refusedAndKilled() async throws {
        let cluster = try await SlurmCluster.shared()
        let space = try Workspace()
        defer { space.remove() }
        let run = try await cluster.run(
            """
            parallel keep-going {
              nowhere: sh "true" { executor slurm; partition "nosuch" }
              greedy: sh "python3 -c 'x = bytearray(300 * 1024 * 1024); import time; time.sleep(5)'" { executor slurm; memory "30M" }
              missing: exec "no-such-program-here" { executor slurm }
            }
            """, in: space)
        #expect(run.status == 1)
        let nowhere = try #require(run.error(of: "nowhere"))
        #expect(nowhere["kind"] as? String == "spawn")
        #expect((nowhere["message"] as? String)?.contains("Invalid partition name specified") == true, "\(nowhere)")
        let greedy = try #require(run.error(of: "greedy"))
        #expect(greedy["kind"] as? String == "signal", "\(greedy)")
        #expect((greedy["message"] as? String)?.contains("memory") == true)
        let missing = try #require(run.error(of: "missing"))
        #expect(missing["kind"] as? String == "spawn", "\(missing)")
        #expect(try await cluster.leftoverJobs().isEmpty)
    }

    @Test("srun that cannot start the job at all fails the step with kind spawn and srun's own words, shown live too")
    func srunItselfFails() async throws {
        let cluster = try await SlurmCluster.shared()
        let space = try Workspace()
        defer { space.remove() }
        try space.write("broken.conf", "this is not a slurm configuration\n")
        let run = try await cluster.run(
            """
            parallel keep-going {
              garbled: sh "echo hi" {
                executor slurm
                env SLURM_CONF = "\(space.path("broken.conf"))"
              }
              fine: sh "echo fine; exit 1" { executor slurm }
            }
            """, in: space)
        #expect(run.status == 1)
        var failed = [try #require(run.error(of: "garbled"), "\(run.stdout)")]
        #expect(run.stdout.contains("[garbled] srun: fatal:"), "srun's own lines are shown as they come: \(run.stdout)")
        // No configuration at all (the issue's case): srun without
        // SLURM_CONF on a machine with no /etc/slurm/slurm.conf. (A
        // SLURM_CONF naming a missing file makes srun retry for 60 s.)
        if !FileManager.default.fileExists(atPath: "/etc/slurm/slurm.conf") {
            let bare = try await Binary.offPool {
                try space.run("noconfig: sh \"echo hi\" { executor slurm }")
            }
            let error = try #require(bare.error(of: "noconfig"), "\(bare.stdout)")
            #expect((error["message"] as? String)?.contains("Could not establish a configuration source") == true, "\(error)")
            failed.append(error)
        }
        for error in failed {
            #expect(error["kind"] as? String == "spawn", "\(error)")
            let message = error["message"] as? String ?? ""
            #expect(message.hasPrefix("srun could not run the job"), "\(message)")
            #expect(!message.contains("expected exit 0"), "\(message)")
        }
        // The command's own exit 1 on the cluster stays the command's.
        #expect(run.error(of: "fine")?["kind"] as? String == "exit")
        #expect(try await cluster.leftoverJobs().isEmpty)
    }

    @Test("--executor slurm sends steps without an executor to the cluster; the graph and the dry run say where each runs")
    func defaultExecutorAndGraph() async throws {
        let cluster = try await SlurmCluster.shared()
        let space = try Workspace()
        defer { space.remove() }
        let workflow = """
            parallel {
              remote: sh "hostname" { partition "small"; cpus 2 }
              mine: sh "true" { executor local }
            }
            """
        let run = try await cluster.run(workflow, in: space, ["--executor", "slurm"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.step("remote")?["executor"] as? String == "slurm")
        #expect(run.step("mine")?["executor"] as? String == "local")
        let dry = try await Binary.offPool { try Binary.run(["--dry-run", "--executor", "slurm", "test.workflow"], in: space.folder) }
        #expect(dry.stdout.contains("remote: sh \"hostname\"  [on slurm partition \"small\" cpus 2]"), "\(dry.stdout)")
        #expect(dry.stdout.contains("mine: sh \"true\"\n") || dry.stdout.contains("mine: sh \"true\"  ["), "\(dry.stdout)")
        #expect(!dry.stdout.contains("mine: sh \"true\"  [on slurm"))
        try space.write("placed.workflow", "a: sh \"true\" { executor slurm }\nb: sh \"true\"\n")
        let dot = try await Binary.offPool {
            try Binary.run(["graph", "--format", "dot", "placed.workflow"], in: space.folder)
        }
        #expect(dot.stdout.contains("a: sh true (on slurm)"), "\(dot.stdout)")
        #expect(dot.stdout.contains("b: sh true") && !dot.stdout.contains("b: sh true (on slurm)"), "\(dot.stdout)")
        // The reports say where each step ran.
        let reports = try await Binary.offPool {
            try Binary.run(
                ["--executor", "slurm", "--report", "markdown=report.md", "--report", "html=report.html", "test.workflow"],
                in: space.folder, environment: cluster.environment)
        }
        #expect(reports.status == 0)
        #expect(space.read("report.md")?.contains("on Slurm (job ") == true, "\(space.read("report.md") ?? "")")
        #expect(space.read("report.html")?.contains("\"on\":\"Slurm, job ") == true)
    }
}
