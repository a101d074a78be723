import Foundation

/// A child process started with `posix_spawn`, with the part of
/// Foundation's `Process` the tests use (the same names, so a test reads
/// the same). Not `Process` because its `run()` scans /proc/self/fd into a
/// buffer it over-reads now and then on Linux (swift-corelibs-foundation
/// PR 5472): a suite whose tests run at once has many descriptors open,
/// and crashed in it (a segfault in `memmove` under `Process.run()`).
///
/// As `Process` does, the child gets its own process group, no signal
/// blocked and every signal's default action; a `Pipe` or `FileHandle`
/// set as a standard stream becomes its fd 0, 1 or 2, nothing else of the
/// test process reaches it, and the parent's copy of a pipe's child end
/// is closed once it started (a reader sees the end of the output when
/// the child and its children are gone).
final class ChildProcess: @unchecked Sendable {
    // @unchecked: the set-up properties are written before `run()` by the
    // one thread that made it; the wait status only under `lock`.

    /// The program to run.
    var executableURL: URL?
    /// Its arguments, after argv[0].
    var arguments: [String]?
    /// Its environment; the test process's when nil.
    var environment: [String: String]?
    /// The folder it starts in; the test process's when nil.
    var currentDirectoryURL: URL?
    /// A `Pipe` or `FileHandle` for fd 0; inherited when nil.
    var standardInput: Any?
    /// A `Pipe` or `FileHandle` for fd 1; inherited when nil.
    var standardOutput: Any?
    /// A `Pipe` or `FileHandle` for fd 2; inherited when nil.
    var standardError: Any?
    /// The child's pid once it started.
    private(set) var processIdentifier: Int32 = 0

    private let lock = NSLock()
    private var waitStatus: Int32?

    /// Starts the program as set up.
    func run() throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let streams: [(target: Int32, value: Any?, input: Bool)] = [
            (0, standardInput, true), (1, standardOutput, false), (2, standardError, false),
        ]
        for stream in streams {
            if let descriptor = Self.childEnd(of: stream.value, input: stream.input) {
                posix_spawn_file_actions_adddup2(&actions, descriptor, stream.target)
            }
        }
        guard let closeFrom = Spawn.addCloseFrom, let changeDirectory = Spawn.addChangeDirectory else {
            throw NSError(
                domain: NSPOSIXErrorDomain, code: Int(ENOSYS),
                userInfo: [NSLocalizedDescriptionKey: "glibc 2.34 or later is needed (posix_spawn_file_actions_addclosefrom_np)"])
        }
        _ = closeFrom(&actions, 3)
        if let folder = currentDirectoryURL {
            _ = changeDirectory(&actions, folder.path)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        let program = executableURL?.path ?? ""
        let argv = ([program] + (arguments ?? [])).map { strdup($0) } + [nil]
        let envp = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var pid: pid_t = 0
        let failed = posix_spawn(&pid, program, &actions, &attributes, argv, envp)
        guard failed == 0 else {
            throw NSError(
                domain: NSPOSIXErrorDomain, code: Int(failed),
                userInfo: [NSLocalizedDescriptionKey: "posix_spawn \(program): \(String(cString: strerror(failed)))"])
        }
        processIdentifier = pid
        for stream in streams {
            if let pipe = stream.value as? Pipe {
                try? (stream.input ? pipe.fileHandleForReading : pipe.fileHandleForWriting).close()
            }
        }
    }

    /// False once the child has exited (it is reaped then).
    var isRunning: Bool { reap(blocking: false) == nil }

    /// Blocks the thread until the child exits.
    func waitUntilExit() {
        _ = reap(blocking: true)
    }

    /// Its exit status, or the signal that ended it (as `Process` says).
    var terminationStatus: Int32 {
        guard let status = reap(blocking: false) else { return -1 }
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : signal
    }

    /// Whether it exited or died of a signal.
    var terminationReason: Process.TerminationReason {
        guard let status = reap(blocking: false) else { return .exit }
        return status & 0x7f == 0 ? .exit : .uncaughtSignal
    }

    /// Sends SIGTERM while it runs.
    func terminate() {
        if isRunning { kill(processIdentifier, SIGTERM) }
    }

    /// The wait status once the child has exited; with `blocking`, waits
    /// for that. The wait itself does not reap (WNOWAIT), so only the
    /// locked `waitpid` does, once.
    private func reap(blocking: Bool) -> Int32? {
        guard processIdentifier > 0 else { return nil }
        if blocking {
            var info = siginfo_t()
            while waitid(P_PID, id_t(processIdentifier), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
        }
        lock.lock()
        defer { lock.unlock() }
        if let waitStatus { return waitStatus }
        var status: Int32 = 0
        guard waitpid(processIdentifier, &status, WNOHANG) == processIdentifier else { return nil }
        waitStatus = status
        return status
    }

    /// The descriptor the child gets for a stream set to `value`.
    private static func childEnd(of value: Any?, input: Bool) -> Int32? {
        switch value {
        case let pipe as Pipe: return (input ? pipe.fileHandleForReading : pipe.fileHandleForWriting).fileDescriptor
        case let handle as FileHandle: return handle.fileDescriptor
        default: return nil
        }
    }
}

/// glibc's posix_spawn file actions that Swift's Glibc module does not
/// import (they are GNU extensions), found by name.
private enum Spawn {
    typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    typealias AddChangeDirectory = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    static let addCloseFrom: AddCloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: AddCloseFrom.self) }
    static let addChangeDirectory: AddChangeDirectory? = dlsym(nil, "posix_spawn_file_actions_addchdir_np")
        .map { unsafeBitCast($0, to: AddChangeDirectory.self) }
}
