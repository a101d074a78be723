import CSystemShims
import Glibc
import PromiseEngine
import RunnerSystem

/// What to start: a program (an absolute path), its arguments (the first is
/// argv[0]), the whole environment and the working folder.
struct SpawnRequest {
    var executable: String
    var arguments: [String]
    var environment: [String: String]
    var workingDirectory: String
    /// Whether to give the child a pipe for standard input (else /dev/null).
    var feedsStandardInput: Bool
    /// The step's mark (`StepMarkers`), put first in the child's environment.
    var marker: String = ""
}

/// A started child: its pid (also its process group id), a pidfd that
/// becomes readable when it exits, and our ends of its pipes. Every
/// descriptor is close-on-exec; the read ends and the stdin write end are
/// non-blocking.
struct SpawnedChild {
    var pid: pid_t
    var pidFD: Int32
    /// -1 when standard input is /dev/null.
    var standardInput: Int32
    var standardOutput: Int32
    var standardError: Int32
}

/// Why a program could not be started.
struct SpawnError: Error, CustomStringConvertible {
    var message: String
    /// The system's error number when the program could not be executed.
    var code: Int32 = 0
    var description: String { message }
}

enum Spawner {
    /// Starts the child in a process group of its own (see `csh_spawn`).
    static func spawn(_ request: SpawnRequest) throws(SpawnError) -> SpawnedChild {
        // Pairs of descriptors on the stack: no array allocated per spawn.
        var output = Pipe()
        var errorPipe = Pipe()
        var input = Pipe()
        func closeAll() {
            for fd in [output.read, output.write, errorPipe.read, errorPipe.write, input.read, input.write] where fd >= 0 { close(fd) }
        }
        guard output.open(readNonBlocking: true), errorPipe.open(readNonBlocking: true),
            !request.feedsStandardInput || input.open(readNonBlocking: false)
        else {
            let code = errno
            closeAll()
            throw SpawnError(
                message: "cannot make pipes for '\(request.arguments.first ?? request.executable)': \(systemReason(code))",
                code: code)
        }

        var pid: pid_t = 0
        var pidFD: Int32 = -1
        // The runner's own folder needs no chdir in the child.
        let folder = request.workingDirectory == processDirectory ? nil : request.workingDirectory
        let environment = EnvironmentBlock.block(for: request.environment)
        // The mark first, then the shared block: one small array per spawn.
        let count = environment.count
        let envp = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: count + 2)
        let mark = strdup(StepMarkers.variable + "=" + request.marker + (environment.inheritedMarks.map { "\n" + $0 } ?? ""))
        defer {
            free(mark)
            envp.deallocate()
        }
        envp[0] = mark
        (envp + 1).update(from: environment.pointers, count: count + 1)
        var result: Int32 = 0
        for attempt in 0...textBusyRetries {
            result = withCStrings(request.arguments) { argv in
                withExtendedLifetime(environment) {
                    csh_spawn(
                        &pid, &pidFD, request.executable, argv, envp, folder,
                        input.read, output.write, errorPipe.write)
                }
            }
            // A program written just now (a `file write` step, then `sh
            // "./it"`) is "busy" while a child spawned meanwhile by another
            // step still holds a copy of the writer's descriptor, until that
            // child's own exec a moment later. Wait that moment out.
            guard result == ETXTBSY, attempt < textBusyRetries else { break }
            usleep(useconds_t(1000 << min(attempt, 5)))
        }
        // The child's ends belong to the child now.
        close(output.write)
        close(errorPipe.write)
        if input.read >= 0 { close(input.read) }
        output.write = -1
        errorPipe.write = -1
        input.read = -1

        guard result == 0 else {
            closeAll()
            throw SpawnError(message: describeFailure(result, request), code: result)
        }

        return SpawnedChild(
            pid: pid, pidFD: pidFD, standardInput: input.write,
            standardOutput: output.read, standardError: errorPipe.read)
    }

    /// A pipe's two ends, -1 until opened. Both close-on-exec.
    private struct Pipe {
        var read: Int32 = -1
        var write: Int32 = -1

        /// Opens it; the read end non-blocking, or (`readNonBlocking`
        /// false) the write end. False with errno set when it fails.
        mutating func open(readNonBlocking: Bool) -> Bool {
            var ends: (Int32, Int32) = (-1, -1)
            let made = withUnsafeMutableBytes(of: &ends) { bytes in
                csh_pipe(bytes.baseAddress!.assumingMemoryBound(to: Int32.self), readNonBlocking ? 1 : 0, readNonBlocking ? 0 : 1)
            }
            guard made == 0 else { return false }
            (read, write) = ends
            return true
        }
    }

    /// How often a spawn that failed with ETXTBSY is tried again (waiting
    /// 1, 2, 4, 8, 16, then 32 ms each time: about 1 s in all, for a busy
    /// machine where the other child may wait long for a core before its
    /// exec).
    static let textBusyRetries = 35

    /// promise-run's working folder, read once: it never changes it.
    private static let processDirectory: String? = {
        guard let pointer = getcwd(nil, 0) else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }()

    /// The message for a failed spawn: the program and the system's reason,
    /// or the working folder when it is the folder that is missing.
    private static func describeFailure(_ code: Int32, _ request: SpawnRequest) -> String {
        if code == ENOENT || code == ENOTDIR || code == EACCES {
            var info = stat()
            if stat(request.workingDirectory, &info) != 0 {
                return "cannot start '\(request.executable)': working folder '\(request.workingDirectory)': \(systemReason(errno))"
            }
            if (info.st_mode & S_IFMT) != S_IFDIR {
                return "cannot start '\(request.executable)': working folder '\(request.workingDirectory)' is not a folder"
            }
        }
        return "cannot start '\(request.executable)': \(systemReason(code))"
    }
}

/// Calls `body` with a NULL-terminated array of C strings, freed afterwards.
func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
    let pointers = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: strings.count + 1)
    defer { pointers.deallocate() }
    for (index, string) in strings.enumerated() {
        pointers[index] = strdup(string)
    }
    pointers[strings.count] = nil
    defer {
        for index in 0..<strings.count { free(pointers[index]) }
    }
    return body(pointers)
}

/// An environment as execve takes it: a NULL-terminated array of
/// `NAME=value` C strings. The steps of a run mostly share one environment,
/// so the last one made is kept and used again while it is equal (the same
/// dictionary storage compares at once), instead of some hundred small
/// allocations per spawn.
final class EnvironmentBlock: Sendable {
    let environment: [String: String]
    /// How many entries `pointers` holds (before its nil).
    let count: Int
    /// The marks of the runs this one runs inside (promise-run in a step
    /// of another): joined to the step's own in one variable, never a
    /// second entry of the same name, which a shell or Python passes on
    /// alone (the last one wins), losing the inner run's mark.
    let inheritedMarks: String?
    // Written once in `init`, freed in `deinit`; only read in between.
    nonisolated(unsafe) let pointers: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>

    private static let last = Lock<EnvironmentBlock?>(nil)

    static func block(for environment: [String: String]) -> EnvironmentBlock {
        if let kept = last.withLock({ $0 }), kept.environment == environment { return kept }
        let made = EnvironmentBlock(environment)
        last.withLock { $0 = made }
        return made
    }

    private init(_ environment: [String: String]) {
        self.environment = environment
        inheritedMarks = environment[StepMarkers.variable]
        pointers = .allocate(capacity: environment.count + 1)
        var index = 0
        for entry in environment where entry.key != StepMarkers.variable {
            pointers[index] = strdup(entry.key + "=" + entry.value)
            index += 1
        }
        count = index
        pointers[index] = nil
    }

    deinit {
        for index in 0..<count { free(pointers[index]) }
        pointers.deallocate()
    }
}
