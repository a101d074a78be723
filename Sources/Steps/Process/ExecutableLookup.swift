import Glibc
import RunnerSystem

/// Finds the program of an `exec` step: a name with a `/` is a path
/// (relative to the working folder); a bare name is looked up in the
/// `PATH` of the step's environment, as `execvp` would.
enum ExecutableLookup {
    /// The PATH used when the environment has none (glibc's default).
    static let defaultSearchPath = "/usr/local/bin:/usr/bin:/bin"

    static func resolve(_ program: String, environment: [String: String], workingDirectory: String) throws(SpawnError) -> String {
        guard !program.isEmpty else { throw SpawnError(message: "exec: the program name is empty") }
        if program.contains("/") {
            let path = Paths.resolve(program, against: workingDirectory)
            var info = stat()
            guard stat(path, &info) == 0 else {
                throw SpawnError(message: "cannot start '\(program)': \(systemReason(errno))")
            }
            guard isExecutableFile(info) else {
                throw SpawnError(
                    message: "cannot start '\(program)': \((info.st_mode & S_IFMT) == S_IFDIR ? "is a folder" : "not executable (permission denied)")"
                )
            }
            return path
        }
        let searchPath = environment["PATH"] ?? defaultSearchPath
        var deniedCandidate: String?
        for base in folders(of: searchPath, workingDirectory: workingDirectory) {
            let candidate = base.hasSuffix("/") ? base + program : base + "/" + program
            var info = stat()
            guard stat(candidate, &info) == 0, (info.st_mode & S_IFMT) != S_IFDIR else { continue }
            if isExecutableFile(info) { return candidate }
            if deniedCandidate == nil { deniedCandidate = candidate }
        }
        if let deniedCandidate {
            throw SpawnError(message: "cannot start '\(program)': '\(deniedCandidate)' is not executable (permission denied)")
        }
        throw SpawnError(message: "cannot start '\(program)': not found in PATH (\(searchPath))")
    }

    /// The folders a bare name is looked for in, in order: PATH's entries
    /// made absolute (an empty entry is the working folder, as in POSIX).
    static func folders(of searchPath: String, workingDirectory: String) -> [String] {
        searchPath.split(separator: ":", omittingEmptySubsequences: false).map { folder in
            folder.isEmpty ? workingDirectory : Paths.resolve(String(folder), against: workingDirectory)
        }
    }

    private static func isExecutableFile(_ info: stat) -> Bool {
        (info.st_mode & S_IFMT) == S_IFREG && (info.st_mode & 0o111) != 0
    }
}
