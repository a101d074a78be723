import Glibc
import JSON
import PromiseEngine
import RunnerSystem
import WorkflowModel

/// `.promise-run/` beside the workflow file: per step, the fingerprint of
/// its last successful run and what it produced (exit code, output tails,
/// captures), so that an up-to-date step still has its fields. Each entry
/// is a file written atomically (a temporary file, then a rename), so two
/// runs that overlap never leave half an entry: the last one wins. An entry
/// that cannot be read, is corrupt or is of another format means "run it".
package struct IncrementalStore: Sendable {
    static let format = "promise-run-step/1"
    let folder: String
    /// What the store saw of each file it hashed.
    let hashes: StatCache

    init(workflowDirectory: String) {
        folder = Self.folder(workflowDirectory: workflowDirectory)
        hashes = StatCache(workflowDirectory: workflowDirectory)
    }

    /// The folder of the entries of the workflow in `workflowDirectory`.
    package static func folder(workflowDirectory: String) -> String {
        Paths.join(workflowDirectory, ".promise-run/steps")
    }

    struct Entry {
        var fingerprint: String
        var result: StepResult
        /// Each source file's content hash (for `--dry-run`'s reasons).
        var files: [String: String] = [:]
        /// Each file its `generates` matched after the success, with its
        /// content hash: a missing or changed one makes the step out of date.
        var outputs: [String: String] = [:]
        /// The prerequisites its `depfile` listed after the success, with
        /// their content hashes: a changed one makes the step out of date.
        var discovered: [String: String] = [:]
    }

    /// The key a step is stored by: its node's id, and inside `foreach`
    /// the values of the items it runs for, not their positions:
    /// adding, removing or renaming one item runs that item's step alone.
    /// The items count by a hash, so no item's text is written to disk.
    static func key(_ nodeID: String, items: [String]) -> String {
        guard !items.isEmpty else { return nodeID }
        var hash = Hash128()
        for item in items { hash.add(item) }
        return nodeID + "@" + hash.hex
    }

    private func path(for id: String) -> String {
        // ASCII letters, digits and `-_.` kept, anything else `_` (one
        // `_` for each byte of a character outside ASCII).
        var bytes: [UInt8] = []
        bytes.reserveCapacity(min(80, id.utf8.count))
        for byte in id.utf8.prefix(80) {
            let keep =
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
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
            case .string(let fingerprint)? = object["fingerprint"]
        else { return nil }
        var exitCode: Int?
        if case .number(let number)? = object["exit"] { exitCode = number.integerValue }
        func string(_ key: String) -> String? {
            if case .string(let value)? = object[key] { return value }
            return nil
        }
        func strings(_ key: String) -> [String: String] {
            var found: [String: String] = [:]
            if case .object(let stored)? = object[key] {
                for member in stored.members {
                    if case .string(let value) = member.value { found[member.key] = value }
                }
            }
            return found
        }
        let result = StepResult(
            stdout: CapturedText(text: string("stdout") ?? ""), stderr: CapturedText(text: string("stderr") ?? ""),
            exitCode: exitCode, captures: strings("captures"))
        return Entry(
            fingerprint: fingerprint, result: result, files: strings("files"), outputs: strings("outputs"),
            discovered: strings("discovered"))
    }

    /// The files every stored entry read (its sources, what its depfile
    /// listed) and wrote (its outputs), absolute: what `--watch` watches
    /// beyond the literal `sources` patterns (a foreach's `"{{f}}"`), and
    /// what it never reacts to (a foreach's `"obj/{{f|stem}}.o"`).
    package static func knownFiles(workflowDirectory: String) -> (inputs: [String], outputs: Set<String>) {
        let store = IncrementalStore(workflowDirectory: workflowDirectory)
        var inputs: Set<String> = []
        var outputs: Set<String> = []
        for name in FileSystem.entriesOrNone(of: store.folder) where name.hasSuffix(".json") {
            guard case .success(let text) = FileSystem.readText(Paths.join(store.folder, name)),
                let document = try? JSONDocument.parse(text), case .object(let object) = document,
                case .string(let format)? = object["format"], format == Self.format
            else { continue }
            var folder = workflowDirectory
            if case .string(let relative)? = object["folder"] { folder = Paths.absolute(relative, from: workflowDirectory) }
            func names(_ key: String) -> [String] {
                guard case .object(let table)? = object[key] else { return [] }
                return table.members.map { Paths.normalized(Paths.absolute($0.key, from: folder)) }
            }
            inputs.formUnion(names("files") + names("discovered"))
            outputs.formUnion(names("outputs"))
        }
        return (inputs.subtracting(outputs).sorted(), outputs)
    }

    /// Forgets a step's entry: it failed, timed out or was cancelled after
    /// it started, and what it wrote may be half done (the next run runs it).
    func forget(id: String) {
        unlink(path(for: id))
    }

    /// `folder`: the step's folder, relative to the workflow's (what the
    /// paths of `files`, `outputs` and `discovered` are relative to).
    func save(
        id: String, fingerprint: String, result: StepResult, folder: String = ".", files: [String: String] = [:],
        outputs: [String: String] = [:], discovered: [String: String] = [:]
    ) {
        var json = "{\n"
        json += "  \"format\": \(Filter.jsonQuoted(Self.format)),\n"
        json += "  \"step\": \(Filter.jsonQuoted(id)),\n"
        json += "  \"folder\": \(Filter.jsonQuoted(folder)),\n"
        json += "  \"fingerprint\": \(Filter.jsonQuoted(fingerprint)),\n"
        if let exit = result.exitCode { json += "  \"exit\": \(exit),\n" }
        json += "  \"stdout\": \(Filter.jsonQuoted(result.stdout?.text ?? "")),\n"
        json += "  \"stderr\": \(Filter.jsonQuoted(result.stderr?.text ?? "")),\n"
        var pairs: [String] = []
        for name in result.captures.keys.sorted() {
            pairs.append(Filter.jsonQuoted(name) + ": " + Filter.jsonQuoted(result.captures[name] ?? ""))
        }
        json += "  \"captures\": {" + pairs.joined(separator: ", ") + "},\n"
        func object(_ name: String, _ table: [String: String]) -> String {
            let members = table.keys.sorted().map { "    " + Filter.jsonQuoted($0) + ": " + Filter.jsonQuoted(table[$0] ?? "") }
            return "  " + Filter.jsonQuoted(name) + ": {" + (members.isEmpty ? "" : "\n" + members.joined(separator: ",\n") + "\n  ") + "}"
        }
        json += [object("files", files), object("outputs", outputs), object("discovered", discovered)].joined(separator: ",\n")
        json += "\n}\n"
        var bytes = Array(json.utf8)
        let target = path(for: id)
        try? bytes.withUnsafeMutableBytes { try FileSystem().writeAtomically(target, contents: UnsafeRawBufferPointer($0), durable: false) }
    }
}
