import Foundation
import Testing

/// Issue 19: no process outlives promise-run, whatever a step's processes
/// do. Tests/Fixtures/escapees.py runs the matrix (a `setsid` child, a
/// double fork into a new session, `nohup` with `disown`, a `setsid` child
/// that ignores SIGTERM; each under SIGTERM, SIGINT, a step timeout, a
/// group timeout, fail-fast, a lost race, the normal end and SIGKILL to the
/// runner; and 8 such steps in parallel) and looks for any process left.
/// `PROMISE_RUN_CONTAINMENT_REPEAT=5` (set by .ci/run for a second pass)
/// repeats the matrix.
@Suite("End to end: no process outlives the run")
struct ContainmentEndToEndTests {
    @Test func noEscapeeOutlivesTheRun() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let repeats = ProcessInfo.processInfo.environment["PROMISE_RUN_CONTAINMENT_REPEAT"] ?? "1"
        let binary = try #require(Binary.url).path
        let outcome = try await Binary.runCommandOffPool(
            "/usr/bin/env",
            [
                "python3", TestServers.fixture("escapees.py"), binary,
                space.folder.path, repeats, "6",
            ])
        let lines = outcome.stdout.split(separator: "\n").map(String.init)
        let problems = lines.filter { !$0.hasPrefix("done ") }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))\(outcome.stderr)")
        #expect(lines.last?.hasSuffix(" 0") == true, "\(lines.last ?? outcome.stderr)")
    }

    @Test("the end of the run warns about what a finished step left running, and ends it")
    func leftoversAreNamed() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let sleeper = try markedSleep(in: space.folder)
        let run = try await space.run(
            """
            server: sh "setsid \(sleeper) 300 &"
            quiet: sh "setsid \(sleeper) 301 &" {
              detach
            }
            """)
        #expect(run.status == 0)
        #expect(run.stderr.contains("warning: 'server' left '\(sleeper) 300'"), "\(run.stderr)")
        #expect(run.stderr.contains("it was ended with the run"))
        #expect(!run.stderr.contains("'quiet' left"), "a detached step's processes end without a warning")
        #expect(processes(containing: URL(fileURLWithPath: sleeper).lastPathComponent).isEmpty)
    }

    @Test("the run's own end, not the watchdog, ends a leftover that ignores SIGTERM and keeps starting sessions of its own")
    func aRespawningLeftoverEndsWithTheRun() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let sleeper = try markedSleep(in: space.folder)
        let name = URL(fileURLWithPath: sleeper).lastPathComponent
        // A supervisor of its own session that ignores SIGTERM and starts
        // a new session every 0.1 s: a scan at the end of the run reads a
        // set of processes that is stale a moment later.
        try space.write(
            "w.workflow",
            """
            spawner: sh "setsid sh -c \\"trap '' TERM; while :; do setsid \(sleeper) 300 & sleep 0.1; done\\" &"
            wait: sh "while [ ! -e go ]; do sleep 0.05; done"
            """)
        let runner = try RunningBinary(["--color", "never", "w.workflow"], in: space.folder)
        // The watchdog (the runner's child that leads a session of its own)
        // ends marked processes once the runner is gone; stopped here, it
        // cannot hide what the run's own teardown left. The run waits for
        // the file `go`, made once the watchdog is stopped: on a busy
        // machine this task may not run for seconds.
        var watchdog: pid_t?
        let deadline = ContinuousClock.now + .seconds(60)
        while watchdog == nil, runner.process.isRunning, ContinuousClock.now < deadline {
            watchdog = sessionLeadingChildren(of: runner.pid).first
            if watchdog == nil { try await Task.sleep(for: .milliseconds(10)) }
        }
        defer {
            // A test that stops early lets the run end, and its processes.
            try? space.write("go", "")
            if runner.process.isRunning { kill(runner.pid, SIGTERM) }
            if let watchdog {
                kill(watchdog, SIGKILL)
                kill(watchdog, SIGCONT)
            }
            for line in processes(containing: name) {
                if let pid = Int32(line.prefix { $0 != ":" }) { kill(pid, SIGKILL) }
            }
        }
        let stopped = try #require(watchdog, "the runner's watchdog was not found: \(runner.stderr)")
        kill(stopped, SIGSTOP)
        try space.write("go", "")
        let status = try await runner.waitForExit()
        #expect(status == 0, "\(runner.stdout)\(runner.stderr)")
        #expect(runner.stderr.contains("warning: 'spawner' left"), "\(runner.stderr)")
        // A SIGKILL takes effect when its process next runs.
        var left = processes(containing: name)
        let settle = ContinuousClock.now + .seconds(1)
        while !left.isEmpty, ContinuousClock.now < settle {
            try await Task.sleep(for: .milliseconds(20))
            left = processes(containing: name)
        }
        #expect(left.isEmpty, "\(left.count) left running after the run ended, among them: \(left.prefix(3))")
    }

    @Test("a run that ended every process itself takes its watchdog with it: nothing of the run outlives it, not for a moment")
    func theWatchdogGoesWithTheRun() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("w.workflow", "a: sh \"while [ ! -e go ]; do sleep 0.05; done\"\n")
        let runner = try RunningBinary(["--color", "never", "w.workflow"], in: space.folder)
        defer {
            try? space.write("go", "")
            if runner.process.isRunning { kill(runner.pid, SIGKILL) }
        }
        var watchdog: pid_t?
        let deadline = ContinuousClock.now + .seconds(60)
        while watchdog == nil, runner.process.isRunning, ContinuousClock.now < deadline {
            watchdog = sessionLeadingChildren(of: runner.pid).first
            if watchdog == nil { try await Task.sleep(for: .milliseconds(10)) }
        }
        let found = try #require(watchdog, "the runner's watchdog was not found: \(runner.stderr)")
        try space.write("go", "")
        let status = try await runner.waitForExit()
        #expect(status == 0, "\(runner.stdout)\(runner.stderr)")
        // Reaped by the runner before it exited: no such process, not even
        // a zombie (a sweep of /proc after the runner is gone would keep it
        // for 150 ms at least).
        #expect(!FileManager.default.fileExists(atPath: "/proc/\(found)"), "the watchdog \(found) outlived the run")
    }

    @Test("promise-run inside a step of another promise-run (a CI workflow running a build's own workflow) still contains its own steps' processes")
    func nestedRunsKeepTheirMarks() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let sleeper = try markedSleep(in: space.folder)
        let binary = try #require(Binary.url).path
        try space.write(
            "inner.workflow",
            """
            server: sh "setsid \(sleeper) 302 &"
            """)
        // A shell passes one value of a variable on: the inner run's mark
        // must not be lost to the outer's.
        let run = try await space.run(
            """
            outer: exec "\(binary)" "--color" "never" "inner.workflow"
            """)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("warning: 'server' left '\(sleeper) 302'"), "\(run.stdout)\(run.stderr)")
        #expect(!run.stderr.contains("'outer' left"), "the inner run ended its own leftovers: \(run.stderr)")
        #expect(processes(containing: URL(fileURLWithPath: sleeper).lastPathComponent).isEmpty)
    }
}

/// The children of `parent` that lead a session of their own (from
/// /proc/PID/stat: ppid is field 4, the session field 6).
private func sessionLeadingChildren(of parent: pid_t) -> [pid_t] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap { entry -> pid_t? in
        guard let pid = pid_t(entry),
            let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 4, pid_t(fields[1]) == parent, pid_t(fields[3]) == pid else { return nil }
        return pid
    }
}
