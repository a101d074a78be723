#if canImport(Glibc)
import Glibc
import PromiseEngine
import RunnerSystem
import WorkflowModel
#endif

/// A 128-bit non-cryptographic hash, for fingerprints: two 64-bit lanes
/// over 8-byte words (multiply, rotate, cross-feed), a final avalanche.
/// Not for security: a fingerprint decides whether to run a step again.
struct Hash128 {
    private var a: UInt64 = 0x243F_6A88_85A3_08D3
    private var b: UInt64 = 0x1319_8A2E_0370_7344
    private var length: UInt64 = 0

    mutating func add(_ buffer: UnsafeRawBufferPointer) {
        var offset = 0
        let count = buffer.count
        while offset + 8 <= count {
            mix(buffer.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
        }
        if offset < count {
            var tail: UInt64 = 0
            for index in offset..<count { tail |= UInt64(buffer[index]) << (8 * UInt64(index - offset)) }
            mix(tail ^ 0x80)
        }
        length &+= UInt64(count)
    }

    mutating func add(_ text: String) {
        var text = text
        text.withUTF8 { add(UnsafeRawBufferPointer($0)) }
        // A separator: "ab"+"c" differs from "a"+"bc".
        mix(0xFF00_FF00_FF00_FF00 ^ UInt64(text.utf8.count))
    }

    private mutating func mix(_ word: UInt64) {
        a = (a ^ word) &* 0x9E37_79B9_7F4A_7C15
        a = (a << 31) | (a >> 33)
        b = (b ^ word) &* 0xC2B2_AE3D_27D4_EB4F
        b = ((b << 29) | (b >> 35)) &+ a
    }

    private static func avalanche(_ value: UInt64) -> UInt64 {
        var x = value
        x ^= x >> 30
        x = x &* 0xBF58_476D_1CE4_E5B9
        x ^= x >> 27
        x = x &* 0x94D0_49BB_1331_11EB
        return x ^ (x >> 31)
    }

    /// 32 hex digits.
    var hex: String {
        let high = Self.avalanche(a ^ length), low = Self.avalanche(b ^ (length &* 0x9E37_79B9_7F4A_7C15) ^ a)
        // Written byte by byte: one small string, no intermediate ones.
        return String(unsafeUninitializedCapacity: 32) { out in
            let digits: StaticString = "0123456789abcdef"
            for (index, value) in [high, low].enumerated() {
                for nibble in 0..<16 {
                    out[index * 16 + nibble] = digits.utf8Start[Int((value >> UInt64(60 - 4 * nibble)) & 15)]
                }
            }
            return 32
        }
    }
}

/// What decides whether a step with `sources` is up to date (spec §13):
/// the names and contents of the files its `sources` match, and its
/// resolved command, arguments, working folder, stdin, and the environment
/// the workflow gives it (never the whole inherited environment: a
/// terminal's or a CI runner's own variables must not make it out of date).
package enum Fingerprint {
    /// The fingerprint, the matched files (relative names, with their
    /// content hashes), and the `sources` patterns that matched no file.
    /// `environment`: what the workflow gives the step (`env`,
    /// `--env-file`) and the `env-inputs` it names.
    /// The step's folder counts relative to `workflowDirectory` (spec §19):
    /// a checkout moved, copied or mounted elsewhere is still up to date.
    static func compute(step: ResolvedStep, workingDirectory: String, workflowDirectory: String, environment: [String: String])
        -> (hex: String, files: [String: String], unmatched: [String]) {
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
            let contents = contentHash(Paths.absolute(file, from: workingDirectory))
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
                    current[match] = contentHash(Paths.absolute(match, from: base))
                }
            }
            if let changed = current.keys.sorted().first(where: { entry.files[$0] != current[$0] }) {
                verdicts.append((node.id, entry.files[changed] == nil ? "would run: \(changed) is new" : "would run: \(changed) changed"))
            } else if let gone = entry.files.keys.sorted().first(where: { current[$0] == nil }) {
                verdicts.append((node.id, "would run: \(gone) is gone"))
            } else if let missing = generates.first(where: { FileSystem.glob($0, base: base).isEmpty }) {
                verdicts.append((node.id, "would run: nothing matches generates '\(missing)'"))
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
    /// (what the store remembers after a success, spec §19).
    static func outputs(_ step: ResolvedStep, workingDirectory: String) -> [String: String] {
        var names: Set<String> = []
        switch step {
        case .shell(_, let process), .exec(_, let process):
            for pattern in process.generates { names.formUnion(SourceGlob.matches(pattern, base: workingDirectory)) }
        default:
            break
        }
        var hashes: [String: String] = [:]
        for name in names { hashes[name] = contentHash(Paths.absolute(name, from: workingDirectory)) }
        return hashes
    }

    /// Whether every output the store remembers is still there with the
    /// content it had.
    static func outputsIntact(_ remembered: [String: String], workingDirectory: String) -> Bool {
        remembered.allSatisfy { name, hash in contentHash(Paths.absolute(name, from: workingDirectory)) == hash }
    }
}

/// `.promise-run/` beside the workflow file: per step, the fingerprint of
/// its last successful run and what it produced (exit code, output tails,
/// captures), so that an up-to-date step still has its fields. Each entry
/// is a file written atomically (a temporary file, then a rename), so two
/// runs that overlap never leave half an entry: the last one wins. An entry
/// that cannot be read, is corrupt or is of another format means "run it".
struct IncrementalStore: Sendable {
    static let format = "promise-run-step/1"
    let folder: String

    init(workflowDirectory: String) {
        folder = Paths.join(workflowDirectory, ".promise-run/steps")
    }

    struct Entry {
        var fingerprint: String
        var result: StepResult
        /// Each source file's content hash (for `--dry-run`'s reasons).
        var files: [String: String] = [:]
        /// Each file its `generates` matched after the success, with its
        /// content hash: a missing or changed one makes the step out of date.
        var outputs: [String: String] = [:]
    }

    private func path(for id: String) -> String {
        // ASCII letters, digits and `-_.` kept, anything else `_` (one
        // `_` for each byte of a character outside ASCII).
        var bytes: [UInt8] = []
        bytes.reserveCapacity(min(80, id.utf8.count))
        for byte in id.utf8.prefix(80) {
            let keep = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
            bytes.append(keep ? byte : UInt8(ascii: "_"))
        }
        let name = String(decoding: bytes, as: UTF8.self)
        var hash = Hash128()
        hash.add(id)
        return Paths.join(folder, String(name.prefix(80)) + "-" + String(hash.hex.prefix(12)) + ".json")
    }

    func load(id: String) -> Entry? {
        guard case .success(let text) = FileSystem.readText(path(for: id)),
              let document = try? JSONDocument.parse(text), case .object(let object) = document,
              case .string(let format)? = object["format"], format == Self.format,
              case .string(let step)? = object["step"], step == id,
              case .string(let fingerprint)? = object["fingerprint"] else { return nil }
        var exitCode: Int?
        if case .number(let number)? = object["exit"] { exitCode = number.integerValue }
        func string(_ key: String) -> String? {
            if case .string(let value)? = object[key] { return value }
            return nil
        }
        var captures: [String: String] = [:]
        if case .object(let stored)? = object["captures"] {
            for member in stored.members {
                if case .string(let value) = member.value { captures[member.key] = value }
            }
        }
        let result = StepResult(stdout: CapturedText(text: string("stdout") ?? ""), stderr: CapturedText(text: string("stderr") ?? ""),
                                exitCode: exitCode, captures: captures)
        var files: [String: String] = [:]
        if case .object(let stored)? = object["files"] {
            for member in stored.members {
                if case .string(let value) = member.value { files[member.key] = value }
            }
        }
        var outputs: [String: String] = [:]
        if case .object(let stored)? = object["outputs"] {
            for member in stored.members {
                if case .string(let value) = member.value { outputs[member.key] = value }
            }
        }
        return Entry(fingerprint: fingerprint, result: result, files: files, outputs: outputs)
    }

    /// Forgets a step's entry: it failed, timed out or was cancelled after
    /// it started, and what it wrote may be half done (the next run runs it).
    func forget(id: String) {
        unlink(path(for: id))
    }

    func save(id: String, fingerprint: String, result: StepResult, files: [String: String] = [:], outputs: [String: String] = [:]) {
        var json = "{\n"
        json += "  \"format\": \(Filter.jsonQuoted(Self.format)),\n"
        json += "  \"step\": \(Filter.jsonQuoted(id)),\n"
        json += "  \"fingerprint\": \(Filter.jsonQuoted(fingerprint)),\n"
        if let exit = result.exitCode { json += "  \"exit\": \(exit),\n" }
        json += "  \"stdout\": \(Filter.jsonQuoted(result.stdout?.text ?? "")),\n"
        json += "  \"stderr\": \(Filter.jsonQuoted(result.stderr?.text ?? "")),\n"
        var pairs: [String] = []
        for name in result.captures.keys.sorted() {
            pairs.append(Filter.jsonQuoted(name) + ": " + Filter.jsonQuoted(result.captures[name] ?? ""))
        }
        json += "  \"captures\": {" + pairs.joined(separator: ", ") + "},\n"
        var hashes: [String] = []
        for name in files.keys.sorted() { hashes.append("    " + Filter.jsonQuoted(name) + ": " + Filter.jsonQuoted(files[name] ?? "")) }
        json += "  \"files\": {" + (hashes.isEmpty ? "" : "\n" + hashes.joined(separator: ",\n") + "\n  ") + "},\n"
        let made = outputs.keys.sorted().map { "    " + Filter.jsonQuoted($0) + ": " + Filter.jsonQuoted(outputs[$0] ?? "") }
        json += "  \"outputs\": {" + (made.isEmpty ? "" : "\n" + made.joined(separator: ",\n") + "\n  ") + "}\n}\n"
        var bytes = Array(json.utf8)
        let target = path(for: id)
        try? bytes.withUnsafeMutableBytes { try FileSystem().writeAtomically(target, contents: UnsafeRawBufferPointer($0), durable: false) }
    }
}
