import RunnerSystem
import WorkflowModel

/// The shared cache's key for a step: a SHA-256 over what the local
/// fingerprint covers (the resolved command or arguments, stdin, the
/// environment the workflow gives the step, the `sources` patterns and the
/// names and contents of the files they match) and the `generates`
/// patterns, with the step's folder relative to the workflow file's
/// folder: two checkouts in different folders, on different machines,
/// with different inherited environments, get the same key.
/// See docs/language.md, 'A shared cache'.
enum CacheKey {
    /// The key, or nil for a step that is not a process step.
    static func compute(
        step: ResolvedStep, relativeFolder: String, workingDirectory: String,
        environment: [String: String]
    ) -> String? {
        let command: [String]
        let process: ResolvedProcessOptions
        switch step {
        case .shell(let text, let options): (command, process) = (["sh", text], options)
        case .exec(let arguments, let options): (command, process) = (["exec"] + arguments, options)
        default: return nil
        }
        var hash = SHA256()
        // Each field is its byte count, then its bytes: no two inputs run together.
        func add(_ text: String) {
            hash.update(String(text.utf8.count) + ":")
            hash.update(text)
        }
        add(CacheEntry.format)
        add("command")
        add(String(command.count))
        command.forEach(add)
        add("folder")
        add(relativeFolder)
        add("stdin")
        add(process.stdin.map { "=" + $0 } ?? "none")
        add("environment")
        for name in environment.keys.sorted() {
            add(name)
            add(environment[name] ?? "")
        }
        add("generates")
        process.generates.forEach(add)
        add("depfile")
        add(process.depfile.map { "=" + $0 } ?? "none")
        add("sources")
        var files: Set<String> = []
        for pattern in process.sources {
            add(pattern)
            files.formUnion(SourceGlob.matches(pattern, base: workingDirectory))
        }
        add("files")
        for file in files.sorted() {
            add(file)
            add(SHA256.hex(ofFile: Paths.absolute(file, from: workingDirectory)) ?? "unreadable")
        }
        return hash.hex()
    }

    /// `folder` relative to `base` (both absolute): `.` when the same,
    /// `sub/dir` inside it, and the absolute path when outside it (a step
    /// that works outside its checkout depends on where that is).
    static func relative(_ folder: String, to base: String) -> String {
        let folder = Paths.normalized(folder)
        let base = Paths.normalized(base)
        if folder == base { return "." }
        let prefix = base == "/" ? "/" : base + "/"
        return folder.hasPrefix(prefix) ? String(folder.dropFirst(prefix.count)) : folder
    }
}
