import Dispatch
import Glibc
import WorkflowModel

/// Slurm's client commands other than `srun` (`scancel`, `squeue`), run to
/// their end off the caller's thread. They are promise-run's own helpers,
/// not steps: not in the process table, output read whole.
enum SlurmCommands {
    /// Runs `arguments` (the first is looked up in `PATH`) and returns its
    /// exit status and standard output; nil if it could not start.
    static func run(_ arguments: [String], environment: [String: String]) -> (status: Int32, output: String)? {
        guard let program = try? ExecutableCache.shared.resolve(arguments[0], environment: environment, workingDirectory: "/") else {
            return nil
        }
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
        posix_spawn_file_actions_addclose(&actions, pipeEnds[1])
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, program, &actions, nil, argv, envp)
        close(pipeEnds[1])
        guard spawned == 0 else {
            close(pipeEnds[0])
            return nil
        }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(pipeEnds[0], &buffer, buffer.count)
            if count > 0 {
                output += buffer[0..<count]
            } else if count == 0 || errno != EINTR {
                break
            }
        }
        close(pipeEnds[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return (exit, String(decoding: output, as: UTF8.self))
    }

    /// The ids of the jobs in the queue whose name starts with `prefix`.
    static func jobs(named prefix: String, environment: [String: String]) -> [String]? {
        guard let (status, output) = run(["squeue", "--noheader", "--format=%i %j"], environment: environment),
            status == 0
        else { return nil }
        return output.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", maxSplits: 1)
            guard fields.count == 2, fields[1].hasPrefix(prefix) else { return nil }
            return String(fields[0])
        }
    }
}
