import Glibc
import PromiseEngine
import RunnerSystem
import Synchronization
import WorkflowModel

/// The process groups a runner started and that may still be alive: the
/// running steps, and the groups whose leader ended but left processes
/// behind (`sh "server &"`). `killAll` and `terminateAll` reach them all,
/// so no child outlives promise-run.
final class ProcessTable: Sendable {
    private struct State {
        /// Running steps by leader pid (= process group id); the leader is
        /// not reaped while it is here, so the id is safe to signal.
        var running: [pid_t: ProcessExecution] = [:]
        /// Groups whose leader was reaped while members lived on.
        var lingering: Set<pid_t> = []
        /// After `killAll`/`terminateAll`: no new start begins.
        var closed = false
        /// Starts under way (`beginStart`): a child may exist that is not
        /// in `running` yet, and before its exec no scan can tell it is ours.
        var starting = 0
        /// Every step's mark, its step id and whether it is detached (for
        /// the leftovers' warnings): appended, looked up only when something
        /// was left behind.
        var steps: [(mark: String, id: String, detached: Bool)] = []
        /// A mark was made: a process may have been started with it.
        var marked = false
        /// What finished steps left running, found at the end of the run.
        var leftovers: [LeftoverProcess] = []
        /// `terminateAll` ended with a scan that found nothing left (not
        /// by giving up on a process that would not go).
        var endedEverything = false
    }

    private let state = Lock(State())
    private let loop = EventLoop.shared
    /// The prefix of this runner's step marks (`StepMarkers`).
    let markPrefix = StepMarkers.runnerPrefix()

    /// A new step mark of this runner.
    func makeMark() -> String {
        state.withLock { $0.marked = true }
        return StepMarkers.make(markPrefix)
    }

    /// Before a spawn: false (and the step must not start) once the table
    /// is closed. Each true is followed by one `endStart`.
    ///
    /// Between the spawn and `endStart` the child is in no table and, until
    /// its exec, shows promise-run's own environment, without its mark: a
    /// teardown cannot find it. So `killAll` and `terminateAll` close the
    /// table, then wait for the starts under way to end here.
    func beginStart() -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            state.starting += 1
            return true
        }
    }

    /// Ends a start: adds its process (none when the spawn failed). One
    /// that ends after the table closed is added too, with its group sent
    /// SIGKILL, here, before the start counts as over: `killAll` and
    /// `terminateAll` then wait for it like any other.
    func endStart(adding execution: ProcessExecution?) {
        state.withLock { state in
            state.starting -= 1
            guard let execution else { return }
            state.running[execution.pid] = execution
            state.steps.append((execution.marker, execution.id, execution.detached))
            if state.closed {
                execution.killedByRunner.store(true, ordering: .releasing)
                kill(-execution.pid, SIGKILL)
            }
        }
    }

    /// Waits on the calling thread until no start is under way (at most
    /// `limit`: a start holds its thread only until the child's exec).
    private func waitForStarts(limit: Duration = .seconds(5)) {
        let deadline = ContinuousClock.now + limit
        while state.withLock({ $0.starting > 0 }), ContinuousClock.now < deadline {
            usleep(1000)
        }
    }

    func remove(_ execution: ProcessExecution) {
        _ = state.withLock { $0.running.removeValue(forKey: execution.pid) }
    }

    func addLingering(group: pid_t) {
        state.withLock { state in
            state.lingering.insert(group)
            state.lingering = state.lingering.filter { !Self.isGone($0) }
        }
    }

    /// How many steps are running and how many left-behind groups are alive.
    /// Running process steps.
    var runningCount: Int { state.withLock { $0.running.count } }

    var counts: (running: Int, lingering: Int) {
        state.withLock { state in
            (state.running.count, state.lingering.filter { !Self.isGone($0) }.count)
        }
    }

    /// SIGKILL to every group, now, from the calling thread; the running
    /// steps then settle as cancelled once reaped. Closes the table, and
    /// returns once every process it killed is gone (at most about a
    /// second after the SIGKILLs): the runner may exit next (a second
    /// Ctrl-C), and a child whose start was under way, or that had not yet
    /// acted on its SIGKILL, would outlive it.
    func killAll() {
        state.withLock { $0.closed = true }
        waitForStarts()
        let (executions, lingering): ([ProcessExecution], [pid_t]) = state.withLock { state in
            for (pid, execution) in state.running {
                execution.killedByRunner.store(true, ordering: .releasing)
                kill(-pid, SIGKILL)
            }
            let lingering = state.lingering.filter { Self.isOurLeaderlessGroup($0) }
            for group in lingering { kill(-group, SIGKILL) }
            state.lingering.removeAll()
            return (Array(state.running.values), Array(lingering))
        }
        // Whatever carries this runner's marks, wherever it went.
        for process in ProcessGroupScan.markedProcesses(prefix: markPrefix).processes { process.signal(SIGKILL) }
        loop.execute {
            for execution in executions { execution.kill() }
        }
        // A SIGKILL takes effect when its process next runs, which on a
        // loaded machine may be a few milliseconds later; and a process
        // inside execve shows its mark only once its new image has one.
        let groups = executions.map(\.pid) + lingering
        let deadline = ContinuousClock.now + .seconds(1)
        let prefix = markPrefix
        var images: ImagesToFollow?
        while ContinuousClock.now < deadline {
            if var following = images {
                if following.followed(isOurs: { $0.hasPrefix(prefix) }) {
                    images = nil
                } else if following.isSettled {
                    return
                } else {
                    images = following
                    usleep(2000)
                    continue
                }
            }
            let live = ProcessGroupScan.liveGroups()
            let marked = ProcessGroupScan.markedProcesses(prefix: prefix)
            if marked.processes.isEmpty, !groups.contains(where: { live[$0] != nil }) {
                if marked.betweenImages.isEmpty { return }
                images = ImagesToFollow(marked.betweenImages)
            }
            for process in marked.processes { process.signal(SIGKILL) }
            usleep(2000)
        }
    }

    /// Cancels every running step (SIGTERM, then SIGKILL after the grace
    /// period) and does the same to the left-behind groups and to every
    /// other process with this runner's marks; the promise is fulfilled
    /// when every leader is reaped and a fresh scan finds no process of
    /// these groups and none with a mark, once each process that scan found
    /// inside execve (whose mark cannot be read yet) shows it is not ours;
    /// or 5 s after the SIGKILLs whatever is left.
    /// Closes the table (after the starts under way).
    func terminateAll(gracePeriod: Duration) -> Promise<Void> {
        let (promise, resolver) = Promise<Void>.pending()
        state.withLock { $0.closed = true }
        // A start under way ends in the table, its group killed: it is
        // among the executions below, and its process is not taken for
        // something a finished step left.
        waitForStarts()
        let (executions, lingering): ([ProcessExecution], [pid_t]) = state.withLock { state in
            let lingering = state.lingering.filter { Self.isOurLeaderlessGroup($0) }
            state.lingering.removeAll()
            return (Array(state.running.values), Array(lingering))
        }
        let (steps, marked) = state.withLock { ($0.steps, $0.marked) }
        // A runner that never started a process has nothing to end.
        if !marked && executions.isEmpty && lingering.isEmpty {
            state.withLock { $0.endedEverything = true }
            resolver.fulfill(())
            return promise
        }
        // Those of `detach` steps were meant to live this long: no warning.
        let byMark = Dictionary(steps.map { ($0.mark, (id: $0.id, detached: $0.detached)) }, uniquingKeysWith: { first, _ in first })
        let prefix = markPrefix
        let asked = ContinuousClock.now
        loop.execute { [self] in
            for execution in executions { execution.cancel() }
            let deadline = asked + gracePeriod
            // A process that does not go even after SIGKILL (stuck in the
            // kernel) does not hold the run for ever.
            let givingUp = deadline + .seconds(5)
            var named: Set<pid_t> = []
            var terminated: Set<pid_t> = []
            var scannedAfter = asked
            // Set when a scan found nothing of the run's but processes
            // inside execve: those are followed, not the whole of /proc.
            var images: ImagesToFollow?
            // Every round scans again until nothing is left: a leftover may
            // start more (a supervisor, a `setsid` in a loop), move to a
            // group of its own after a scan read it, or be inside execve,
            // its mark not readable yet, when a scan passes it.
            func poll() {
                let now = ContinuousClock.now
                if var following = images {
                    let ours = following.followed(isOurs: { $0.hasPrefix(prefix) })
                    images = ours ? nil : following
                    if !ours {
                        if following.isSettled || now >= givingUp {
                            if following.isSettled { state.withLock { $0.endedEverything = true } }
                            resolver.fulfill()
                        } else {
                            loop.schedule(after: .milliseconds(5)) { poll() }
                        }
                        return
                    }
                }
                let scan =
                    marked
                    ? GroupCensus.shared.value.processes(markedWithPrefix: prefix, scannedAfter: scannedAfter) : MarkScan()
                scannedAfter = ContinuousClock.now
                // What finished steps left behind, in their group or out of
                // it (a new session, a double fork), named as first found:
                // the left-behind groups are signalled only after the first
                // scan read them. The processes of steps still running are
                // theirs to end; once a step has ended, whatever of its is
                // still there is a stray like any other (a step's teardown
                // may end with a process of its still inside execve).
                let runningMarks = state.withLock { Set($0.running.values.map(\.marker)) }
                let strays = scan.processes.filter { !$0.marks.contains(where: runningMarks.contains) }
                var reported: [LeftoverProcess] = []
                for process in strays where named.insert(process.pid).inserted {
                    let step = process.marks.lazy.compactMap { byMark[$0] }.first
                    if step?.detached == true { continue }
                    reported.append(
                        LeftoverProcess(step: step?.id ?? "?", pid: process.pid, command: ProcessGroupScan.commandLine(of: process.pid)))
                }
                if !reported.isEmpty { state.withLock { $0.leftovers += reported } }
                let remaining = lingering.filter { ProcessGroupScan.hasLiveMembersShared($0, existedBy: asked) }
                let running = state.withLock { $0.running.count }
                if running == 0, remaining.isEmpty, strays.isEmpty {
                    if scan.betweenImages.isEmpty {
                        state.withLock { $0.endedEverything = true }
                        resolver.fulfill()
                    } else {
                        images = ImagesToFollow(scan.betweenImages)
                        loop.schedule(after: .milliseconds(5)) { poll() }
                    }
                    return
                }
                if running == 0, now >= givingUp {
                    resolver.fulfill()
                    return
                }
                let killing = now >= deadline
                for group in remaining {
                    if killing {
                        kill(-group, SIGKILL)
                    } else if terminated.insert(-group).inserted {
                        kill(-group, SIGTERM)
                        kill(-group, SIGCONT)
                    }
                }
                for process in strays { process.end(killing: killing, terminated: &terminated) }
                loop.schedule(after: .milliseconds(20)) { poll() }
            }
            poll()
        }
        return promise
    }

    /// Whether `terminateAll` has ended and found nothing of the runner's
    /// left: false before, and when it gave up on a process.
    var endedEverything: Bool { state.withLock { $0.endedEverything } }

    /// What finished steps left running, found and ended by `terminateAll`.
    var leftovers: [LeftoverProcess] { state.withLock { $0.leftovers } }

    /// No process is in the group any more (its id may be reused later).
    private static func isGone(_ group: pid_t) -> Bool {
        kill(-group, 0) != 0 && errno == ESRCH
    }

    /// Whether `group` still names the group we left: it has members and
    /// none of them is its leader (ours was reaped, so a live process with
    /// that pid leading its own group would be a newcomer reusing the id).
    private static func isOurLeaderlessGroup(_ group: pid_t) -> Bool {
        if isGone(group) { return false }
        if let leader = ProcessGroupScan.status(of: group), leader.group == group,
            leader.state != UInt8(ascii: "Z")
        {
            return false
        }
        return true
    }
}

/// A process a finished step left running, ended with the run.
package struct LeftoverProcess: Sendable, Hashable {
    /// The id of the step that started it (`server`, `fetch[3]`).
    package var step: String
    package var pid: Int32
    /// Its command line, cut at 120 characters.
    package var command: String
}
