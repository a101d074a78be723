import JSON
import RunnerSystem
import WorkflowModel

/// A step's entry in the shared cache (`ac/KEY`): what its successful run
/// produced (exit code, output, captures) and each path its `generates`
/// matched, relative to the step's folder: a file by its SHA-256 (the
/// object `cas/SHA256`), size and mode; a symbolic link by its target
/// text, as written (never read through); a hard link by the path of a
/// file earlier in the entry that is the same file.
struct CacheEntry: Sendable, Equatable {
    /// In the key too: an entry of format 1 (files only) is never looked
    /// up by a runner that writes format 2, so neither reads the other's.
    static let format = "promise-run-cache/2"

    struct File: Sendable, Equatable {
        enum Kind: Sendable, Equatable {
            /// A regular file: its contents' object, their size, its
            /// permission bits (0o755).
            case file(sha256: String, size: Int, mode: UInt32)
            /// A symbolic link and its target text, as readlink gives it.
            case link(target: String)
            /// Another name of the file at this path, earlier in the entry.
            case hardLink(of: String)
        }

        /// Relative to the step's folder; never absolute, never `..`.
        var path: String
        var kind: Kind

        /// The object a regular file's contents are stored as.
        var object: (sha256: String, size: Int)? {
            if case .file(let sha256, let size, _) = kind { return (sha256, size) }
            return nil
        }
    }

    var exitCode: Int?
    var stdout: String
    var stderr: String
    var captures: [String: String]
    var files: [File]
    /// What the step's depfile listed after the success (paths relative to
    /// its folder, or absolute), with their content hashes: a checkout
    /// whose copy of one differs does not restore the entry.
    var discovered: [String: String] = [:]

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
            let path = "{\"path\": \(Filter.jsonQuoted(file.path)), "
            switch file.kind {
            case .file(let sha256, let size, let mode):
                return path + "\"mode\": \(mode), \"sha256\": \(Filter.jsonQuoted(sha256)), \"size\": \(size)}"
            case .link(let target): return path + "\"link\": \(Filter.jsonQuoted(target))}"
            case .hardLink(let of): return path + "\"hardlink\": \(Filter.jsonQuoted(of))}"
            }
        }.joined(separator: ", ")
        out += "]"
        if !discovered.isEmpty {
            out += ", \"discovered\": {"
            out += discovered.keys.sorted().map { Filter.jsonQuoted($0) + ": " + Filter.jsonQuoted(discovered[$0] ?? "") }
                .joined(separator: ", ")
            out += "}"
        }
        return out + "}\n"
    }

    /// The entry in `text`, or why it cannot be used (a corrupt or foreign
    /// entry, or one that would write outside the step's folder, make a
    /// path twice, put a path below another of its own that is not a
    /// folder, or link a path to a file it does not hold).
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
        if case .object(let stored)? = object["discovered"] {
            for member in stored.members {
                guard case .string(let hash) = member.value else {
                    return .failure(CacheProblem(.failed, "a prerequisite of the entry is malformed"))
                }
                entry.discovered[member.key] = hash
            }
        }
        guard case .array(let files)? = object["files"] else { return .failure(CacheProblem(.failed, "the entry has no file list")) }
        var regular: Set<String> = []
        var named: Set<String> = []
        for file in files {
            guard case .object(let fields) = file, case .string(let path)? = fields["path"], let kind = Self.kind(fields) else {
                return .failure(CacheProblem(.failed, "a file of the entry is malformed"))
            }
            guard isContained(path) else { return .failure(CacheProblem(.failed, "the entry names a file outside the step's folder (\(path))")) }
            guard named.insert(path).inserted else { return .failure(CacheProblem(.failed, "the entry names \(path) twice")) }
            if case .hardLink(let of) = kind, !regular.contains(of) {
                return .failure(CacheProblem(.failed, "the entry makes \(path) a hard link of \(of), which is not a file before it in the entry"))
            }
            if case .file = kind { regular.insert(path) }
            entry.files.append(File(path: path, kind: kind))
        }
        // Only a folder has paths below it: never a file or a link of the entry.
        for path in named {
            let names = path.split(separator: "/")
            for count in names.indices.dropFirst() where named.contains(names[..<count].joined(separator: "/")) {
                return .failure(CacheProblem(.failed, "the entry names \(path) below its own \(names[..<count].joined(separator: "/"))"))
            }
        }
        return .success(entry)
    }

    /// A file's kind from its fields: exactly one of a file's `sha256`
    /// (with `mode` and `size`), a `link`'s target text or a `hardlink`'s
    /// path; nil when malformed.
    private static func kind(_ fields: JSONObject) -> File.Kind? {
        switch (fields["sha256"], fields["link"], fields["hardlink"]) {
        case (.string(let sha)?, nil, nil):
            guard isDigest(sha), case .number(let mode)? = fields["mode"], let modeValue = mode.integerValue, (0...0o7777).contains(modeValue),
                case .number(let size)? = fields["size"], let sizeValue = size.integerValue, sizeValue >= 0
            else { return nil }
            return .file(sha256: sha, size: sizeValue, mode: UInt32(modeValue))
        case (nil, .string(let target)?, nil):
            // What symlink(2) takes: not empty, no NUL, at most PATH_MAX.
            guard !target.isEmpty, !target.utf8.contains(0), target.utf8.count < 4096 else { return nil }
            return .link(target: target)
        case (nil, nil, .string(let of)?):
            guard isContained(of) else { return nil }
            return .hardLink(of: of)
        default:
            return nil
        }
    }

    /// 64 lower-case hex digits.
    static func isDigest(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }

    /// A relative path that stays inside its folder, written one way
    /// only (no empty, `.` or `..` name): two names of the entry are the
    /// same path only when they are the same text.
    static func isContained(_ path: String) -> Bool {
        !path.isEmpty && !path.contains("\u{0}")
            && path.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
    }
}
