import Glibc
import PromiseEngine

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
        /// After `killAll`/`terminateAll`: new processes are refused.
        var closed = false
    }

    private let state = Locked(State())
    private let loop = EventLoop.shared

    /// Adds a spawned process; false (and nothing added) once the table is
    /// closed.
    func insert(_ execution: ProcessExecution) -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            state.running[execution.pid] = execution
            return true
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
    /// steps then settle as cancelled once reaped. Closes the table.
    func killAll() {
        let executions: [ProcessExecution] = state.withLock { state in
            state.closed = true
            for (pid, execution) in state.running {
                execution.killedByRunner.store(true, ordering: .releasing)
                kill(-pid, SIGKILL)
            }
            for group in state.lingering where Self.isOurLeaderlessGroup(group) {
                kill(-group, SIGKILL)
            }
            state.lingering.removeAll()
            return Array(state.running.values)
        }
        loop.execute {
            for execution in executions { execution.kill() }
        }
    }

    /// Cancels every running step (SIGTERM, then SIGKILL after the grace
    /// period) and does the same to the left-behind groups; the promise is
    /// fulfilled when no process of any of these groups is alive and every
    /// leader is reaped. Closes the table.
    func terminateAll(gracePeriod: Duration) -> Promise<Void> {
        let (promise, resolver) = Promise<Void>.pending()
        let (executions, lingering): ([ProcessExecution], [pid_t]) = state.withLock { state in
            state.closed = true
            let lingering = state.lingering.filter { Self.isOurLeaderlessGroup($0) }
            state.lingering.removeAll()
            return (Array(state.running.values), Array(lingering))
        }
        for group in lingering {
            kill(-group, SIGTERM)
            kill(-group, SIGCONT)
        }
        loop.execute { [self] in
            for execution in executions { execution.cancel() }
            let deadline = ContinuousClock.now + gracePeriod
            var killed = false
            func poll() {
                let remaining = lingering.filter { ProcessGroupScan.hasLiveMembersShared($0) }
                let running = state.withLock { $0.running.count }
                if remaining.isEmpty && running == 0 {
                    resolver.fulfill()
                    return
                }
                if !killed, ContinuousClock.now >= deadline {
                    killed = true
                    for group in remaining { kill(-group, SIGKILL) }
                }
                loop.schedule(after: .milliseconds(20)) { poll() }
            }
            poll()
        }
        return promise
    }

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
           leader.state != UInt8(ascii: "Z") {
            return false
        }
        return true
    }
}
