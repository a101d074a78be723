import Foundation
import Glibc
import PromiseEngine
import Testing
import WorkflowModel

@testable import Steps

/// Cancellation, `killAll` and `shutdown` reach every process of a step's
/// group, and nothing survives them.
@Suite("Process cancellation")
struct ProcessCancellationTests {
    /// Starts `script` (which must print `$$` first) and waits until its
    /// group has `members` live processes. Returns the promise and the group.
    private func start(
        _ script: String, _ runner: SystemStepRunner, members: Int,
        in context: (LineCollector) -> StepContext
    ) async throws -> (Promise<StepResult>, pid_t) {
        let lines = LineCollector()
        let promise = runner.run(sh(script), in: context(lines))
        #expect(await eventually { !lines.lines(.stdout).isEmpty })
        let group = try #require(pid_t(lines.lines(.stdout).first ?? ""))
        noteGroup(group)
        #expect(await eventually { liveMembers(ofGroup: group).count >= members })
        return (promise, group)
    }

    @Test func cancellingKillsTheWholeGroupThenSettlesAsCancelled() async throws {
        let folder = TemporaryFolder()
        // A grace period far longer than SIGTERM needs: ending well before
        // it shows SIGTERM did the work.
        let runner = SystemStepRunner(configuration: StepsConfiguration(killGracePeriod: .seconds(60)))
        let path = folder.path
        let (promise, group) = try await start("echo $$; sleep 1000 & sleep 1000", runner, members: 3) {
            StepContext(id: "t", workingDirectory: path, environment: testEnvironment, output: $0)
        }
        // When it settled, taken on the thread that settles it: a task
        // waiting for a pool thread (other tests busy) must not count.
        let settledAt = Lock<ContinuousClock.Instant?>(nil)
        let watched = promise.tap { _ in settledAt.withLock { $0 = .now } }
        let started = ContinuousClock.now
        promise.cancel()
        let outcome = await outcome(of: promise)
        _ = await watched.settled
        #expect(outcome.isCancelled)
        // Settled only once nothing of the group is left.
        #expect(liveMembers(ofGroup: group).isEmpty)
        let settled = try #require(settledAt.withLock { $0 })
        #expect(started.duration(to: settled) < .seconds(30))
        #expect(!isUnreapedChild(group), "the leader is reaped")
        #expect(runner.liveProcessGroups.running == 0)
    }

    @Test func processesIgnoringSIGTERMAreKilledAfterTheGracePeriod() async throws {
        let folder = TemporaryFolder()
        let runner = SystemStepRunner(configuration: StepsConfiguration(killGracePeriod: .milliseconds(300)))
        let path = folder.path
        let script = "trap '' TERM; echo $$; sh -c \"trap '' TERM; sleep 1000\" & sleep 1000"
        let (promise, group) = try await start(script, runner, members: 3) {
            StepContext(id: "t", workingDirectory: path, environment: testEnvironment, output: $0)
        }
        let started = ContinuousClock.now
        promise.cancel()
        #expect(await outcome(of: promise).isCancelled)
        #expect(started.duration(to: .now) >= .milliseconds(300))
        #expect(liveMembers(ofGroup: group).isEmpty)
        #expect(!isUnreapedChild(group))
    }

    /// A shared /proc scan that began before a group existed does not know
    /// it: asked about a group that existed by a later moment, the census
    /// scans again instead of calling it gone. (A step cancelled on a busy
    /// machine settled while its processes lived: the scan it was judged by
    /// was older than the step, kept because scans had grown slow.)
    @Test func aScanOlderThanTheGroupDoesNotCallItGone() async throws {
        let folder = TemporaryFolder()
        let runner = SystemStepRunner(configuration: StepsConfiguration(killGracePeriod: .milliseconds(100)))
        let path = folder.path
        let census = GroupCensus(minimumAge: .seconds(3600))
        let before = ContinuousClock.now
        _ = census.liveGroups(scannedAfter: before)
        let (promise, group) = try await start("echo $$; sleep 1000", runner, members: 1) {
            StepContext(id: "t", workingDirectory: path, environment: testEnvironment, output: $0)
        }
        let existed = ContinuousClock.now
        // Asked about a moment the old scan had already passed, it is reused
        // (what makes a teardown of a thousand groups one scan per tick)...
        #expect(census.liveGroups(scannedAfter: before)[group] == nil)
        // ...but not about a group that existed only later.
        #expect(census.liveGroups(scannedAfter: existed)[group] != nil)
        promise.cancel()
        #expect(await outcome(of: promise).isCancelled)
        #expect(liveMembers(ofGroup: group).isEmpty)
    }

    @Test func cancellationBeforeTheStepStartsRunsNothing() async throws {
        let folder = TemporaryFolder()
        let runner = SystemStepRunner()
        let marker = folder.file("ran")
        let (gate, gateResolver) = Promise<Void>.pending()
        let chained = gate.then {
            runner.run(
                sh("touch '\(marker)'"),
                in: StepContext(
                    id: "t", workingDirectory: "/", environment: testEnvironment))
        }
        chained.cancel()
        gateResolver.fulfill()
        #expect(await outcome(of: chained).isCancelled)
        #expect(!FileManager.default.fileExists(atPath: marker))
    }

    @Test func killAllKillsRunningStepsAndWhatFinishedStepsLeftBehind() async throws {
        let folder = TemporaryFolder()
        let runner = SystemStepRunner()
        let path = folder.path
        // A finished step that left a process behind, holding no pipe.
        let leftBehind = try #require(
            value(
                await run(
                    sh("sleep 1000 >/dev/null 2>&1 & echo $!"), runner, in: folder.context())))
        let straggler = try #require(pid_t(try leftBehind.value(of: .stdout)))
        #expect(kill(straggler, 0) == 0)
        #expect(runner.liveProcessGroups.leftBehind == 1)

        let (first, firstGroup) = try await start("echo $$; sleep 1000 & sleep 1000", runner, members: 3) {
            StepContext(id: "a", workingDirectory: path, environment: testEnvironment, output: $0)
        }
        let (second, secondGroup) = try await start("trap '' TERM; echo $$; sleep 1000", runner, members: 2) {
            StepContext(id: "b", workingDirectory: path, environment: testEnvironment, output: $0)
        }
        runner.killAll()
        #expect(await outcome(of: first).isCancelled)
        #expect(await outcome(of: second).isCancelled)
        #expect(liveMembers(ofGroup: firstGroup).isEmpty)
        #expect(liveMembers(ofGroup: secondGroup).isEmpty)
        #expect(await eventually { ProcessGroupScan.status(of: straggler).map { $0.state == UInt8(ascii: "Z") } ?? true })
        // Nothing new runs after killAll.
        #expect(await run(sh("true"), runner, in: folder.context()).isCancelled)
        #expect(!isUnreapedChild(firstGroup) && !isUnreapedChild(secondGroup))
    }

    /// Issue 39, item 23: promise-run exits right after `killAll` (a second
    /// Ctrl-C), so it returns only once what it killed is gone, starts
    /// under way included: a child between its spawn and the table, or one
    /// that had not yet acted on its SIGKILL, would outlive the runner.
    @Test func killAllReturnsOnceEveryProcessIsGoneStartsUnderWayIncluded() async throws {
        let folder = TemporaryFolder()
        let tag = "item23-" + UUID().uuidString
        var environment = testEnvironment
        environment["PROCESS_CANCELLATION_TAG"] = tag
        let context = folder.context(environment: environment)
        for _ in 0..<5 {
            let runner = SystemStepRunner()
            // The first starts at once; the others are handed to the
            // spawning threads, some still starting when killAll comes.
            let promises = (0..<12).map { _ in runner.run(sh("sleep 1000; true"), in: context) }
            runner.killAll()
            #expect(Self.processes(tagged: tag).isEmpty)
            for promise in promises { #expect(await outcome(of: promise).isCancelled) }
        }
    }

    /// Live processes whose environment holds `PROCESS_CANCELLATION_TAG=tag`.
    private static func processes(tagged tag: String) -> [String] {
        let wanted = Data("PROCESS_CANCELLATION_TAG=\(tag)".utf8)
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.filter { pid in
            guard let pid = pid_t(pid), let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ"),
                environ.split(separator: 0).contains(wanted)
            else { return false }
            return ProcessGroupScan.isAlive(pid)
        }
    }

    @Test func shutdownTerminatesEverythingAndWaits() async throws {
        let folder = TemporaryFolder()
        let runner = SystemStepRunner(configuration: StepsConfiguration(killGracePeriod: .milliseconds(500)))
        let path = folder.path
        let leftBehind = try #require(
            value(
                await run(
                    sh("(trap '' TERM; sleep 1000) >/dev/null 2>&1 & echo $$"), runner, in: folder.context())))
        let leftGroup = try #require(pid_t(try leftBehind.value(of: .stdout)))
        #expect(await eventually { !liveMembers(ofGroup: leftGroup).isEmpty })
        let (running, runningGroup) = try await start("echo $$; sleep 1000", runner, members: 1) {
            StepContext(id: "a", workingDirectory: path, environment: testEnvironment, output: $0)
        }
        try await runner.shutdown().value
        #expect(liveMembers(ofGroup: leftGroup).isEmpty)
        #expect(liveMembers(ofGroup: runningGroup).isEmpty)
        #expect(await outcome(of: running).isCancelled)
        #expect(runner.liveProcessGroups == (0, 0))
    }

    @Test func aBackgroundProcessHoldingThePipesDoesNotHoldTheStep() async throws {
        let folder = TemporaryFolder()
        let runner = SystemStepRunner(configuration: StepsConfiguration(outputLinger: .milliseconds(200)))
        let result = try #require(value(await run(sh("sleep 1000 & echo $!; echo done"), runner, in: folder.context())))
        #expect(result.duration < .seconds(30))
        let lines = (result.stdout?.text ?? "").split(separator: "\n")
        #expect(lines.last == "done")
        let straggler = try #require(pid_t(lines.first ?? ""))
        #expect(kill(straggler, 0) == 0, "left running, without its output")
        try await runner.shutdown().value
        #expect(await eventually { ProcessGroupScan.status(of: straggler).map { $0.state == UInt8(ascii: "Z") } ?? true })
    }
}
