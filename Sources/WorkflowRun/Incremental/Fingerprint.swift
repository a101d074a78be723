import Glibc
import PromiseEngine
import RunnerSystem
package import WorkflowModel

/// What decides whether a step with `sources` is up to date:
/// the names and contents of the files its `sources` match, and its
/// resolved command, arguments, working folder, stdin, and the environment
/// the workflow gives it (never the whole inherited environment: a
/// terminal's or a CI runner's own variables must not make it out of date).
/// See docs/language.md, 'Incremental steps'.
package enum Fingerprint {
    /// The fingerprint, the matched files (relative names, with their
    /// content hashes), and the `sources` patterns that matched no file.
    /// `environment`: what the workflow gives the step (`env`,
    /// `--env-file`) and the `env-inputs` it names.
    /// The step's folder counts relative to `workflowDirectory`:
    /// a checkout moved, copied or mounted elsewhere is still up to date.
    /// `hashes`: the stat cache that reads a file only when it changed.
    static func compute(
        step: ResolvedStep, workingDirectory: String, workflowDirectory: String, environment: [String: String],
        hashes: StatCache
    ) -> (hex: String, files: [String: String], unmatched: [String]) {
        var hash = Hash128()
        var options = ResolvedProcessOptions()
        switch step {
        case .shell(let command, let process):
            hash.add("sh")
            hash.add(command)
            options = process
        case .exec(let arguments, let process):
            hash.add("exec")
            for argument in arguments { hash.add(argument) }
            options = process
        default:
            break
        }
        hash.add(CacheKey.relative(workingDirectory, to: workflowDirectory))
        for name in environment.keys.sorted() {
            hash.add(name)
            hash.add(environment[name] ?? "")
        }
        // No stdin hashes as an empty one.
        hash.add(options.stdin ?? "")
        var files: Set<String> = []
        var unmatched: [String] = []
        for pattern in options.sources {
            hash.add(pattern)
            let matches = SourceGlob.matches(pattern, base: workingDirectory)
            if matches.isEmpty { unmatched.append(pattern) }
            files.formUnion(matches)
        }
        var perFile: [String: String] = [:]
        for file in files.sorted() {
            hash.add(file)
            let contents = hashes.hash(Paths.absolute(file, from: workingDirectory))
            hash.add(contents)
            perFile[file] = contents
        }
        return (hash.hex, perFile, unmatched)
    }

    /// One file's contents hashed (`unreadable` when it cannot be read).
    static func contentHash(_ path: String) -> String {
        var hash = Hash128()
        guard FileSystem.readChunks(path, { hash.add($0) }) else { return "unreadable" }
        return hash.hex
    }

    /// For `--dry-run`: whether a step with literal `sources` would run,
    /// and why, from its sources and outputs alone (its command and
    /// environment are compared only when it runs).
    package static func preview(_ workflow: Workflow, currentDirectory: String) -> [(id: String, verdict: String)] {
        let folder = Paths.absolute(workflow.directory, from: currentDirectory)
        let store = IncrementalStore(workflowDirectory: folder)
        let hashes = store.hashes
        var verdicts: [(id: String, verdict: String)] = []
        for node in workflow.allNodes {
            guard case .step(let step) = node.kind, let process = step.processOptions, !process.sources.isEmpty else { continue }
            // Judged from the file alone: only patterns and a folder without `{{ }}`.
            let sources = process.sources.compactMap(\.literalValue)
            let generates = process.generates.compactMap(\.literalValue)
            let cwd = node.attributes.cwd.map { $0.literalValue }
            guard sources.count == process.sources.count, generates.count == process.generates.count, cwd != .some(nil) else {
                verdicts.append((node.id, "decided when it runs: its patterns use {{ }}"))
                continue
            }
            let base = cwd.flatMap { $0 }.map { Paths.absolute($0, from: folder) } ?? folder
            guard let entry = store.load(id: node.id) else {
                verdicts.append((node.id, "would run: no successful run is stored"))
                continue
            }
            var current: [String: String] = [:]
            for pattern in sources {
                for match in SourceGlob.matches(pattern, base: base) {
                    current[match] = hashes.hash(Paths.absolute(match, from: base))
                }
            }
            if let changed = current.keys.sorted().first(where: { entry.files[$0] != current[$0] }) {
                verdicts.append((node.id, entry.files[changed] == nil ? "would run: \(changed) is new" : "would run: \(changed) changed"))
            } else if let gone = entry.files.keys.sorted().first(where: { current[$0] == nil }) {
                verdicts.append((node.id, "would run: \(gone) is gone"))
            } else if let changed = entry.discovered.keys.sorted().first(where: {
                hashes.hash(Paths.absolute($0, from: base)) != entry.discovered[$0]
            }) {
                verdicts.append((node.id, "would run: \(changed) changed (its depfile lists it)"))
            } else if let missing = generates.first(where: { SourceGlob.matches($0, base: base).isEmpty }) {
                verdicts.append((node.id, "would run: nothing matches generates '\(missing)'"))
            } else if let gone = entry.outputs.keys.sorted().first(where: {
                hashes.hash(Paths.absolute($0, from: base)) != entry.outputs[$0]
            }) {
                verdicts.append((node.id, "would run: its output \(gone) is gone or changed"))
            } else {
                verdicts.append((node.id, "up-to-date, unless its command, environment or stdin changed"))
            }
        }
        return verdicts
    }

    /// The `generates` patterns that match no existing file.
    static func missingOutputs(_ step: ResolvedStep, workingDirectory: String) -> [String] {
        guard case .shell(_, let process) = step else {
            if case .exec(_, let process) = step { return missing(process, workingDirectory) }
            return []
        }
        return missing(process, workingDirectory)
    }

    private static func missing(_ process: ResolvedProcessOptions, _ workingDirectory: String) -> [String] {
        process.generates.filter { SourceGlob.matches($0, base: workingDirectory).isEmpty }
    }

    /// The files a step's `generates` match now, with their content hashes
    /// (what the store remembers after a success).
    static func outputs(_ step: ResolvedStep, workingDirectory: String, hashes: StatCache) -> [String: String] {
        var names: Set<String> = []
        switch step {
        case .shell(_, let process), .exec(_, let process):
            for pattern in process.generates { names.formUnion(SourceGlob.matches(pattern, base: workingDirectory)) }
        default:
            break
        }
        var made: [String: String] = [:]
        for name in names { made[name] = hashes.hash(Paths.absolute(name, from: workingDirectory)) }
        return made
    }

    /// Whether every file the store remembers (the outputs, the
    /// prerequisites a depfile listed) is still there with the content it
    /// had.
    static func intact(_ remembered: [String: String], workingDirectory: String, hashes: StatCache) -> Bool {
        remembered.allSatisfy { name, hash in hashes.hash(Paths.absolute(name, from: workingDirectory)) == hash }
    }

    /// After a success: the prerequisites the step's depfile lists, with
    /// their content hashes, or why they cannot be had (the
    /// depfile is missing, unreadable or not in Makefile form).
    /// A prerequisite modified after `started` (the step's start, wall
    /// clock) is stored as changed: the command may have read it before the
    /// edit, so the next run runs the step (as ninja compares it with the
    /// output's time).
    static func discovered(depfile: String, workingDirectory: String, hashes: StatCache, started: timespec)
        -> Result<[String: String], DepfileProblem>
    {
        let path = Paths.absolute(depfile, from: workingDirectory)
        let text: String
        switch FileSystem.readText(path) {
        case .success(let read): text = read
        case .failure(let error): return .failure(DepfileProblem(reason: "its depfile '\(depfile)' cannot be read (\(error))"))
        }
        guard let names = Depfile.prerequisites(text) else {
            return .failure(DepfileProblem(reason: "its depfile '\(depfile)' is not in Makefile dependency form (TARGET: PREREQUISITE...)"))
        }
        var found: [String: String] = [:]
        for name in names {
            let path = Paths.absolute(name, from: workingDirectory)
            var info = stat()
            if stat(path, &info) == 0,
                (info.st_mtim.tv_sec, info.st_mtim.tv_nsec) >= (started.tv_sec, started.tv_nsec)
            {
                found[name] = "modified while the step ran"
            } else {
                found[name] = hashes.hash(path)
            }
        }
        return .success(found)
    }
}
