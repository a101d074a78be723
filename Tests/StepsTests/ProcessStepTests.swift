import Foundation
import Glibc
import PromiseEngine
import Testing
import WorkflowModel

@testable import Steps

@Suite("Process steps")
struct ProcessStepTests {
    let runner = SystemStepRunner()

    @Test func shellOutputExitAndFields() async throws {
        let folder = TemporaryFolder()
        let result = try #require(value(await run(sh("echo hello; echo oops >&2"), runner, in: folder.context())))
        #expect(result.exitCode == 0)
        #expect(result.stdout?.text == "hello\n")
        #expect(try result.value(of: .stdout) == "hello")
        #expect(try result.value(of: .stderr) == "oops")
        #expect(try result.value(of: .exit) == "0")
        #expect(result.stdout?.truncated == false)
        #expect(result.duration > .zero)
    }

    @Test func nonZeroExitFailsWithKindExitAndTheLastStderr() async throws {
        let folder = TemporaryFolder()
        let failed = try #require(
            failure(
                await run(
                    sh("echo first >&2; echo 'last words' >&2; exit 3"), runner,
                    in: folder.context())))
        #expect(failed.kind == .exit)
        #expect(failed.result?.exitCode == 3)
        #expect(failed.message.hasPrefix("expected exit 0, got 3"))
        #expect(failed.message.contains("last words"))
        #expect(try failed.result?.value(of: .stderr) == "first\nlast words")
    }

    @Test func expectExitAcceptsTheListedCodes() async throws {
        let folder = TemporaryFolder()
        let result = try #require(value(await run(sh("exit 3", expect: [.exit([0, 3])]), runner, in: folder.context())))
        #expect(result.exitCode == 3)
        let failed = try #require(failure(await run(sh("exit 0", expect: [.exit([1, 2])]), runner, in: folder.context())))
        #expect(failed.kind == .exit)
        #expect(failed.message.hasPrefix("expected exit 1 or 2, got 0"))
    }

    @Test func aSignalThatPromiseRunDidNotSendIsKindSignal() async throws {
        let folder = TemporaryFolder()
        let failed = try #require(failure(await run(sh("echo before; kill -KILL $$"), runner, in: folder.context())))
        #expect(failed.kind == .signal)
        #expect(failed.result?.terminatingSignal == Int(SIGKILL))
        #expect(failed.result?.exitCode == nil)
        #expect(failed.message.contains("SIGKILL"))
        #expect(failed.result?.stdout?.text == "before\n")
    }

    @Test func execFindsTheProgramInThePathOfTheStepsEnvironment() async throws {
        let folder = TemporaryFolder()
        let result = try #require(value(await run(exec("printf", "%s|%s", "a b", "$HOME"), runner, in: folder.context())))
        #expect(result.stdout?.text == "a b|$HOME")

        // A PATH of the step's own: a script there is found, the system's are not.
        let bin = folder.file("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try "#!/bin/sh\necho mine\n".write(toFile: bin + "/tool", atomically: true, encoding: .utf8)
        chmod(bin + "/tool", 0o755)
        var environment = testEnvironment
        environment["PATH"] = bin
        let own = try #require(value(await run(exec("tool"), runner, in: folder.context(environment: environment))))
        #expect(own.stdout?.text == "mine\n")
        let missing = try #require(failure(await run(exec("ls"), runner, in: folder.context(environment: environment))))
        #expect(missing.kind == .spawn)
    }

    @Test func aMissingOrNonExecutableProgramIsKindSpawnNamingIt() async throws {
        let folder = TemporaryFolder()
        let missing = try #require(failure(await run(exec("no-such-program-xyz", "arg"), runner, in: folder.context())))
        #expect(missing.kind == .spawn)
        #expect(missing.message.contains("'no-such-program-xyz'"))
        #expect(missing.message.contains("not found"))

        try "echo hi\n".write(toFile: folder.file("script.sh"), atomically: true, encoding: .utf8)
        chmod(folder.file("script.sh"), 0o644)
        let denied = try #require(failure(await run(exec("./script.sh"), runner, in: folder.context())))
        #expect(denied.kind == .spawn)
        #expect(denied.message.contains("'./script.sh'"))
        #expect(denied.message.contains("permission denied"))

        let absent = try #require(failure(await run(exec("/nonexistent/tool"), runner, in: folder.context())))
        #expect(absent.kind == .spawn)
        #expect(absent.message.contains("No such file or directory"))
    }

    @Test func aMissingWorkingFolderIsKindSpawnNamingTheFolder() async throws {
        let context = StepContext(id: "t", workingDirectory: "/nonexistent-folder-xyz", environment: testEnvironment)
        let failed = try #require(failure(await run(sh("true"), runner, in: context)))
        #expect(failed.kind == .spawn)
        #expect(failed.message.contains("/nonexistent-folder-xyz"))
    }

    @Test func theEnvironmentIsExactlyTheContexts() async throws {
        let folder = TemporaryFolder()
        let environment = ["PATH": "/usr/bin:/bin", "ONLY_THIS": "yes it is"]
        let result = try #require(value(await run(exec("env"), runner, in: folder.context(environment: environment))))
        var lines = Set((result.stdout?.text ?? "").split(separator: "\n").map(String.init))
        // Besides the context's: the step's mark, first (StepMarkers).
        let mark = lines.first { $0.hasPrefix("PROMISE_RUN_STEP=\(getpid()).") }
        #expect(mark != nil)
        if let mark { lines.remove(mark) }
        #expect(lines == ["PATH=/usr/bin:/bin", "ONLY_THIS=yes it is"])
    }

    /// A script written just now runs, even while other steps spawn
    /// children that hold a copy of the writer's descriptor for a moment
    /// (exec fails with ETXTBSY then; the spawn waits that out).
    @Test func aScriptWrittenWhileOtherStepsSpawnRunsAtOnce() async throws {
        let folder = TemporaryFolder()
        let context = folder.context()
        let stop = Lock(false)
        let spawning = DispatchGroup()
        // Threads of their own, not Dispatch's global queue: its threads
        // are the ones Swift concurrency runs every test on (two here), and
        // two loops waiting there held them, and so the whole suite, while
        // the 60 rounds ran.
        for _ in 0..<2 {
            spawning.enter()
            Thread {
                while !stop.withLock({ $0 }) {
                    let done = DispatchSemaphore(value: 0)
                    runner.run(sh("true"), in: context).finally { done.signal() }
                    done.wait()
                }
                spawning.leave()
            }.start()
        }
        // The rounds too: awaited on the pool, each round waited behind the
        // suite's other tests while the loops above spun.
        let outcomes = await withCheckedContinuation { (continuation: CheckedContinuation<[Outcome<StepResult>], Never>) in
            Thread {
                var outcomes: [Outcome<StepResult>] = []
                for round in 0..<60 {
                    let path = folder.file("script-\(round)")
                    // Written in place, as a build step writes a script, while
                    // the other threads fork.
                    try? "#!/bin/sh\necho \(round)\n".write(toFile: path, atomically: false, encoding: .utf8)
                    chmod(path, 0o755)
                    let done = DispatchSemaphore(value: 0)
                    let settled = Lock<Outcome<StepResult>?>(nil)
                    _ = runner.run(exec(path), in: context).tap { outcome in
                        settled.withLock { $0 = outcome }
                        done.signal()
                    }
                    done.wait()
                    if let outcome = settled.withLock({ $0 }) { outcomes.append(outcome) }
                }
                stop.withLock { $0 = true }
                spawning.wait()
                continuation.resume(returning: outcomes)
            }.start()
        }
        #expect(outcomes.count == 60)
        for (round, outcome) in outcomes.enumerated() {
            #expect(value(outcome)?.stdout?.text == "\(round)\n")
        }
    }

    /// The environment block is kept between spawns while it is the same:
    /// steps whose environments differ, one after another, each get theirs.
    @Test func stepsWithDifferentEnvironmentsInTurnEachGetTheirOwn() async throws {
        let folder = TemporaryFolder()
        for round in 0..<6 {
            let setting = round % 3 == 0 ? "one" : "other \(round)"
            let environment = ["PATH": "/usr/bin:/bin", "WHICH": setting]
            let result = try #require(value(await run(exec("env"), runner, in: folder.context(environment: environment))))
            let lines = Set((result.stdout?.text ?? "").split(separator: "\n").map(String.init)).filter {
                !$0.hasPrefix("PROMISE_RUN_STEP=")
            }
            #expect(lines == ["PATH=/usr/bin:/bin", "WHICH=\(setting)"])
        }
    }

    @Test func theWorkingFolderIsTheContexts() async throws {
        let folder = TemporaryFolder()
        let result = try #require(value(await run(sh("pwd -P"), runner, in: folder.context())))
        let real = try #require(realpath(folder.path, nil))
        defer { free(real) }
        #expect(try result.value(of: .stdout) == String(cString: real))
    }

    @Test func stdinTextIsFedAndLargeInputDoesNotDeadlock() async throws {
        let folder = TemporaryFolder()
        let small = try #require(value(await run(sh("cat", stdin: "abc\ndef"), runner, in: folder.context())))
        #expect(small.stdout?.text == "abc\ndef")

        // 4 MiB in while cat writes 4 MiB out: both pipes fill unless each is serviced.
        let big = String(repeating: "0123456789abcde\n", count: 256 * 1024)
        let echoed = try #require(value(await run(sh("cat; cat /dev/null", stdin: big), runner, in: folder.context())))
        #expect(echoed.stdout?.totalBytes == big.utf8.count)
        #expect(echoed.stdout?.truncated == true)  // 4 MiB > the 1 MiB tail

        // A child that never reads its input: no hang, no SIGPIPE for us.
        let ignored = try #require(value(await run(sh("exit 0", stdin: big), runner, in: folder.context())))
        #expect(ignored.exitCode == 0)

        // Without stdin text, standard input is empty (not the test's).
        let empty = try #require(value(await run(sh("wc -c"), runner, in: folder.context())))
        #expect(try empty.value(of: .stdout).trimmingCharacters(in: CharacterSet.whitespaces) == "0")
    }

    @Test func onlyTheThreeStandardDescriptorsReachTheChild() async throws {
        let folder = TemporaryFolder()
        // A descriptor of ours without close-on-exec must not leak either.
        let leaky = open("/dev/null", O_RDONLY)
        defer { close(leaky) }
        let result = try #require(value(await run(sh("ls /proc/$$/fd"), runner, in: folder.context())))
        let descriptors = (result.stdout?.text ?? "").split(separator: "\n").compactMap { Int($0) }.sorted()
        #expect(descriptors == [0, 1, 2])
    }

    @Test func theChildHasNoBlockedOrIgnoredSignalsAndItsOwnProcessGroup() async throws {
        let folder = TemporaryFolder()
        // grep is the spawned process itself (no shell, which blocks signals
        // while it forks): its status shows what the spawn gave it. The
        // runner ignores SIGPIPE and the test runs on GCD threads that block
        // most signals; the child must inherit neither.
        let status = try #require(
            value(
                await run(
                    exec("grep", "-E", "^Sig(Blk|Ign)", "/proc/self/status"),
                    runner, in: folder.context())))
        let lines = (status.stdout?.text ?? "").split(separator: "\n")
        try #require(lines.count == 2)
        let mask = try #require(UInt64(lines[0].split(separator: "\t").last ?? "", radix: 16))
        let ignored = try #require(UInt64(lines[1].split(separator: "\t").last ?? "", radix: 16))
        #expect(mask == 0)
        // Signals 32 and 33 (bits 31 and 32) are glibc's internal ones: its
        // posix_spawn leaves them ignored in every child, so a test process
        // started by swift-build has them ignored and passes that on, as
        // exec does. Nothing else may be ignored.
        #expect(ignored & ~UInt64(0x1_8000_0000) == 0)

        let group = try #require(value(await run(sh("echo $$; cut -d' ' -f5 /proc/$$/stat"), runner, in: folder.context())))
        let ids = (group.stdout?.text ?? "").split(separator: "\n")
        #expect(ids.count == 2 && ids[0] == ids[1], "the shell leads its own process group")
    }

    @Test func theOutputSinkGetsEveryLineInOrderPerStream() async throws {
        let folder = TemporaryFolder()
        let lines = LineCollector()
        let script = "for i in 1 2 3 4 5; do echo out$i; echo err$i >&2; done; printf 'no newline'; printf 'crlf\\r\\n' >&2"
        _ = try #require(value(await run(sh(script), runner, in: folder.context(output: lines))))
        #expect(lines.lines(.stdout) == ["out1", "out2", "out3", "out4", "out5", "no newline"])
        #expect(lines.lines(.stderr) == ["err1", "err2", "err3", "err4", "err5", "crlf"])
    }

    @Test func onlyTheTailOfALongStreamIsKept() async throws {
        let folder = TemporaryFolder()
        let small = SystemStepRunner(configuration: StepsConfiguration(outputTailLimit: 1000))
        let result = try #require(value(await run(sh("seq 1 100000"), small, in: folder.context())))
        let stdout = try #require(result.stdout)
        #expect(stdout.truncated)
        #expect(stdout.totalBytes == 588_895)
        #expect(stdout.text.utf8.count <= 1000)
        #expect(stdout.text.hasSuffix("99999\n100000\n"))
        #expect(try result.value(of: .stdout).hasSuffix("\n100000"))
    }

    @Test func stdoutExpectationsAndCaptures() async throws {
        let folder = TemporaryFolder()
        let step = sh(
            "echo 'tool v1.42.7 ready'",
            expect: [.contains(.stdout, "ready"), .matches(.stdout, RegexPattern("v[0-9]+"))],
            capture: [
                Capture(name: "version", source: .matches(.stdout, RegexPattern("v([0-9.]+)"))),
                Capture(name: "word", source: .matches(.stdout, RegexPattern("r[a-z]+"))),
            ])
        let result = try #require(value(await run(step, runner, in: folder.context())))
        #expect(result.captures == ["version": "1.42.7", "word": "ready"])
        #expect(try result.value(of: .capture("version")) == "1.42.7")

        let failed = try #require(
            failure(
                await run(
                    sh("echo nope", expect: [.contains(.stdout, "ready")]),
                    runner, in: folder.context())))
        #expect(failed.kind == .expect)
        #expect(failed.message == "expected stdout to contain \"ready\"; stdout: \"nope\"")

        let noMatch = try #require(
            failure(
                await run(
                    sh("echo abc", capture: [Capture(name: "n", source: .matches(.stdout, RegexPattern("[0-9]+")))]),
                    runner, in: folder.context())))
        #expect(noMatch.kind == .expect)
        #expect(noMatch.message.contains("capture n"))
    }

    @Test func hundredsOfConcurrentProcessesLeaveNoZombie() async throws {
        let folder = TemporaryFolder()
        let context = folder.context()
        let results = await withTaskGroup(of: Outcome<StepResult>.self) { group in
            for _ in 0..<300 {
                group.addTask { await run(sh("echo $$; sleep 0.2"), runner, in: context) }
            }
            var all: [Outcome<StepResult>] = []
            for await outcome in group { all.append(outcome) }
            return all
        }
        let leaders = Set(results.compactMap { $0.value.flatMap { try? pid_t($0.value(of: .stdout)) } })
        #expect(leaders.count == 300)
        #expect(leaders.filter(isUnreapedChild).isEmpty)
    }

    /// In a process of its own, where no other test opens descriptors.
    @Test func hundredsOfProcessesLeaveNoDescriptorOpen() async throws {
        let outcome = try await runIsolated("ProcessStepTests/descriptorsAfterHundredsOfProcesses")
        #expect(outcome.passed, "\(outcome.output)")
    }

    /// In a process of its own, where no other test starts threads.
    @Test func hundredsOfRunningProcessesNeedNoThreadEach() async throws {
        let outcome = try await runIsolated("ProcessStepTests/threadsWhileHundredsOfProcessesRun")
        #expect(outcome.passed, "\(outcome.output)")
    }

    @Test(.enabled(if: isIsolatedRun))
    func threadsWhileHundredsOfProcessesRun() async throws {
        let folder = TemporaryFolder()
        let context = folder.context()
        let threadsBefore = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count
        let promises = (0..<300).map { _ in runner.run(sh("sleep 1000"), in: context) }
        #expect(await eventually(timeout: .seconds(120)) { runner.liveProcessGroups.running == 300 })
        let threadsDuring = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count
        #expect(threadsDuring - threadsBefore < 20, "\(threadsBefore) threads before, \(threadsDuring) with 300 processes")
        try await runner.shutdown().value
        for promise in promises { #expect(await outcome(of: promise).isCancelled) }
    }

    @Test(.enabled(if: isIsolatedRun))
    func descriptorsAfterHundredsOfProcesses() async throws {
        let folder = TemporaryFolder()
        let context = folder.context()
        // The first step starts the event loop, which keeps its descriptors.
        _ = await run(sh("true"), runner, in: context)
        let before = openDescriptorCount()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<300 {
                let step = index % 2 == 0 ? sh("echo out; echo err >&2; sleep 0.1", stdin: "input") : exec("no-such-program-q")
                group.addTask { _ = await run(step, runner, in: context) }
            }
        }
        #expect(openDescriptorCount() == before)
    }
}
