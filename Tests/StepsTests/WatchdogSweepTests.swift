import CSystemShims
import Foundation
import Glibc
import Testing

/// The watchdog's sweep (after promise-run is killed) calls a round quiet
/// only when no live process could still carry a mark it cannot read yet.
/// A process inside execve reads an empty environment for a moment (its
/// new image has none yet; on a loaded CI machine that moment outlasted
/// the sweep's three quiet rounds and a double-forked sleeper escaped):
/// `csh_between_images` tells such a process from those that read empty
/// for good, which must not keep the sweep going.
@Suite("Watchdog sweep")
struct WatchdogSweepTests {
    @Test func readsEmptyForGoodIsNotBetweenImages() throws {
        // A live process with an environment, and one with none at all.
        let plain = try Process.run(URL(fileURLWithPath: "/bin/sleep"), arguments: ["30"])
        let bare = try Process.run(URL(fileURLWithPath: "/usr/bin/env"), arguments: ["-i", "/bin/sleep", "30"])
        defer {
            // SIGKILL: a child of a test thread inherits its blocked signals.
            kill(plain.processIdentifier, SIGKILL)
            kill(bare.processIdentifier, SIGKILL)
            plain.waitUntilExit()
            bare.waitUntilExit()
        }
        // Wait until both sleep in `sleep` itself: then no exec is under way
        // (a process inside execve runs; its environment reads empty too).
        let deadline = ContinuousClock.now + .seconds(20)
        while !(Self.sleeping(plain.processIdentifier) && Self.sleeping(bare.processIdentifier)), ContinuousClock.now < deadline {
            usleep(10_000)
        }
        var value = [CChar](repeating: 0, count: 64)
        #expect(csh_environ_value(bare.processIdentifier, "PATH", &value, value.count) == -2)
        #expect(csh_between_images(bare.processIdentifier) == 0, "an empty environment is not an exec in progress")
        #expect(csh_environ_value(plain.processIdentifier, "NO_SUCH_VARIABLE_HERE", &value, value.count) == -1)
        #expect(csh_between_images(plain.processIdentifier) == 0)
        // A kernel thread (kthreadd) reads empty too.
        #expect(csh_between_images(2) == 0)
    }

    /// Whether `pid` runs `sleep` and is asleep (state S).
    private static func sleeping(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return false }
        return stat.contains("(sleep)") && stat[stat.index(after: end)...].split(separator: " ").first == "S"
    }

    @Test func aZombieIsNotBetweenImages() throws {
        var child: pid_t = 0
        let arguments: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/true"), nil]
        defer { free(arguments[0]) }
        #expect(posix_spawn(&child, "/bin/true", nil, nil, arguments, environ) == 0)
        defer { waitpid(child, nil, 0) }
        // Not reaped: a zombie, whose environment reads empty.
        var info = siginfo_t()
        #expect(waitid(P_PID, id_t(child), &info, WEXITED | WNOWAIT) == 0)
        #expect(csh_between_images(child) == 0)
    }
}
