import RunnerSystem
import WorkflowModel

/// A step's entry in the shared cache (`ac/KEY`): what its successful run
/// produced (exit code, output, captures) and the files its `generates`
/// matched, each by its SHA-256 (the object `cas/SHA256`) and mode, with
/// its path relative to the step's folder.
struct CacheEntry: Sendable, Equatable {
    static let format = "promise-run-cache/1"

    struct File: Sendable, Equatable {
        /// Relative to the step's folder; never absolute, never `..`.
        var path: String
        /// Permission bits (0o755).
        var mode: UInt32
        var sha256: String
        var size: Int
    }

    var exitCode: Int?
    var stdout: String
    var stderr: String
    var captures: [String: String]
    var files: [File]

    var result: StepResult {
        StepResult(stdout: CapturedText(text: stdout), stderr: CapturedText(text: stderr), exitCode: exitCode, captures: captures)
    }

    var json: String {
        var out = "{\"format\": \(Filter.jsonQuoted(Self.format))"
        if let exitCode { out += ", \"exit\": \(exitCode)" }
        out += ", \"stdout\": \(Filter.jsonQuoted(stdout)), \"stderr\": \(Filter.jsonQuoted(stderr)), \"captures\": {"
        out += captures.keys.sorted().map { Filter.jsonQuoted($0) + ": " + Filter.jsonQuoted(captures[$0] ?? "") }.joined(separator: ", ")
        out += "}, \"files\": ["
        out += files.map { file in
            "{\"path\": \(Filter.jsonQuoted(file.path)), \"mode\": \(file.mode), \"sha256\": \(Filter.jsonQuoted(file.sha256)), \"size\": \(file.size)}"
        }.joined(separator: ", ")
        return out + "]}\n"
    }

    /// The entry in `text`, or why it cannot be used (a corrupt or foreign
    /// entry, or one that would write outside the step's folder).
    static func parse(_ text: String) -> Result<CacheEntry, CacheProblem> {
        guard let document = try? JSONDocument.parse(text), case .object(let object) = document else {
            return .failure(CacheProblem(.failed, "the entry is not JSON"))
        }
        guard case .string(let format)? = object["format"], format == Self.format else {
            return .failure(CacheProblem(.failed, "the entry is not of format \(Self.format)"))
        }
        func string(_ key: String) -> String? {
            if case .string(let value)? = object[key] { return value }
            return nil
        }
        var entry = CacheEntry(exitCode: nil, stdout: string("stdout") ?? "", stderr: string("stderr") ?? "", captures: [:], files: [])
        if case .number(let number)? = object["exit"] { entry.exitCode = number.integerValue }
        if case .object(let stored)? = object["captures"] {
            for member in stored.members {
                if case .string(let value) = member.value { entry.captures[member.key] = value }
            }
        }
        guard case .array(let files)? = object["files"] else { return .failure(CacheProblem(.failed, "the entry has no file list")) }
        for file in files {
            guard case .object(let fields) = file, case .string(let path)? = fields["path"],
                  case .number(let mode)? = fields["mode"], let modeValue = mode.integerValue, (0...0o7777).contains(modeValue),
                  case .string(let sha)? = fields["sha256"], isDigest(sha),
                  case .number(let size)? = fields["size"], let sizeValue = size.integerValue, sizeValue >= 0 else {
                return .failure(CacheProblem(.failed, "a file of the entry is malformed"))
            }
            guard isContained(path) else { return .failure(CacheProblem(.failed, "the entry names a file outside the step's folder (\(path))")) }
            entry.files.append(File(path: path, mode: UInt32(modeValue), sha256: sha, size: sizeValue))
        }
        return .success(entry)
    }

    /// 64 lower-case hex digits.
    static func isDigest(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }

    /// A relative path that stays inside its folder.
    static func isContained(_ path: String) -> Bool {
        !path.isEmpty && !path.hasPrefix("/") && !path.split(separator: "/").contains("..") && !path.contains("\u{0}")
    }
}
