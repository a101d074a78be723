import CSystemShims
import Glibc
import PromiseEngine
import RunnerSystem
import Synchronization

/// Each process step's mark: `PROMISE_RUN_STEP=<pid>.<runner>.<n>` in the
/// environment of the process it starts, inherited by everything that
/// process starts, whatever session or group it moves to. A step's
/// teardown ends every live process with its mark, not only its process
/// group; the end of the run ends every process with this runner's prefix;
/// and a watchdog process (started with the first step) does the same if
/// promise-run itself is killed, SIGKILL included.
///
/// What escapes: a process that clears its environment (`env -i`) and
/// leaves the step's process group, or one started by another user.
enum StepMarkers {
    static let variable = "PROMISE_RUN_STEP"
    /// `<pid>.`: every mark of this process starts with it (the
    /// watchdog's sweep).
    static let prefix = "\(getpid())."
    private static let nextRunner = Atomic<Int>(1)
    private static let next = Atomic<Int>(1)
    private static let watchdog = Lock<Bool>(false)

    /// `<pid>.<runner>.`: the prefix of one step runner's marks (a process
    /// may hold several runners; each ends only its own processes).
    static func runnerPrefix() -> String {
        prefix + String(nextRunner.add(1, ordering: .relaxed).oldValue) + "."
    }

    /// A new mark under `runnerPrefix`; the watchdog runs before any
    /// process carries one.
    static func make(_ runnerPrefix: String) -> String {
        startWatchdog()
        return runnerPrefix + String(next.add(1, ordering: .relaxed).oldValue)
    }

    /// Starts the watchdog once per process, with the first mark: a run
    /// that starts no process (every step up to date, HTTP only) forks none.
    static func startWatchdog() {
        watchdog.withLock { started in
            guard !started else { return }
            started = true
            _ = csh_start_watchdog(prefix)
        }
    }

    /// Dismisses the watchdog (when one was started): it exits without a
    /// sweep and is reaped, so that nothing of this process outlives it.
    /// For a process about to exit that has ended every process of its
    /// steps itself.
    static func dismissWatchdog() {
        watchdog.withLock { started in
            guard started else { return }
            _ = csh_dismiss_watchdog()
        }
    }

    /// The marks of process `pid` (several when promise-run runs inside a
    /// step); empty when it has none or is not ours to read.
    static func marks(of pid: pid_t) -> [Substring] {
        if case .marks(let marks) = reading(of: pid) { return marks }
        return []
    }

    /// What /proc says of process `pid`'s marks: the marks, none, or not
    /// yet (it is inside execve: its new image has no environment yet,
    /// though it will have the one it was given, mark included; on a
    /// loaded machine that can last a while).
    static func reading(of pid: pid_t) -> MarkReading {
        var value = [CChar](repeating: 0, count: 512)
        let length = csh_environ_value(pid, variable, &value, value.count)
        if length > 0 { return .marks(cText(value).split(separator: "\n")) }
        if length == -2, csh_between_images(pid) != 0 { return .betweenImages }
        return .none
    }
}

/// What a scan could read of a process's marks.
enum MarkReading {
    /// Its marks (one per runner it is under).
    case marks([Substring])
    /// No mark, or not ours to read.
    case none
    /// Inside execve: no environment to read yet. Scan it again.
    case betweenImages
}
