import Glibc
package import RunnerSystem

/// What a no-op run leaves for the next identical invocation: every path
/// it looked at with what it saw (the dependency journal), and what it
/// showed. When the invocation is the same (its key: arguments, folder,
/// environment, terminal, the binary) and every path still looks the
/// same, the run is a no-op again, and the command shows it without
/// reading the workflow or deciding each step (ninja's no-op, which reads
/// its log and `stat`s; docs/language.md, 'Incremental steps: sources and generates').
///
/// Kept in `.promise-run/noop/` beside the workflow, one file per command
/// line, written atomically; a file that cannot be read, is of another
/// format or another key, is none. Written only for a run whose every
/// step was up to date in the local store, whose journal vouches for it,
/// and whose every path was last changed at least a second before the run
/// began: a path changed later could change again within its clock's
/// tick and look the same (git's "racily clean" rule).
package struct NoOpRecord: Sendable, Equatable {
    static let format = "promise-run-noop/1"

    /// A step the run's summary kept (the table lists it).
    package struct Step: Sendable, Equatable {
        package var id: String
        package var label: String?
        package var kind: String
        package var attempts: Int

        package init(id: String, label: String?, kind: String, attempts: Int) {
            self.id = id
            self.label = label
            self.kind = kind
            self.attempts = attempts
        }
    }

    /// The invocation's key (`key(_:)` of what it was).
    package var key: String
    /// The workflow's name.
    package var workflow: String
    /// Every step found up to date, in the order the console showed them.
    package var shown: [String]
    /// The records the summary kept, in order.
    package var kept: [Step]
    /// Up-to-date steps counted instead of kept.
    package var omitted: Int
    /// Every path the run looked at.
    package var entries: [DependencyJournal.Entry]

    package init(
        key: String, workflow: String, shown: [String], kept: [Step], omitted: Int,
        entries: [DependencyJournal.Entry]
    ) {
        self.key = key
        self.workflow = workflow
        self.shown = shown
        self.kept = kept
        self.omitted = omitted
        self.entries = entries
    }

    /// A hash of an invocation's parts (32 hex digits).
    package static func key(_ parts: [String]) -> String {
        var hash = Hash128()
        for part in parts { hash.add(part) }
        return hash.hex
    }

    /// Where the record of a command line (`name`: `key(_:)` of it) lives.
    package static func path(workflowDirectory: String, name: String) -> String {
        Paths.join(workflowDirectory, ".promise-run/noop/" + name)
    }

    /// Whether every path still looks as the run saw it (one `stat` each).
    package var holds: Bool {
        entries.allSatisfy(\.holds)
    }

    /// What a record keeps of a journal's entries: not the store's own
    /// bookkeeping, which the runs themselves rewrite (the last results,
    /// the stat cache, the records); and one look at a path that is no
    /// link (what `lstat` saw of it is what `stat` saw: a glob's walk,
    /// then the hash).
    package static func inputs(_ entries: [DependencyJournal.Entry]) -> [DependencyJournal.Entry] {
        var kept = entries.filter { entry in
            // Relative (`.promise-run/stat-cache` beside a workflow in the
            // current folder) or absolute alike.
            let path = "/" + entry.path
            return entry.look == .environment || (!ownFiles.contains { path.hasSuffix($0) } && !path.contains("/.promise-run/noop/"))
        }
        var notLinks: Set<String> = []
        for entry in kept where entry.look == .itself {
            if case .file(let mode, _, _, _, _, _) = entry.seen, mode & UInt32(S_IFMT) != UInt32(S_IFLNK) { notLinks.insert(entry.path) }
        }
        kept.removeAll { $0.look == .followed && notLinks.contains($0.path) }
        return kept
    }

    private static let ownFiles = ["/.promise-run/last-results.json", "/.promise-run/stat-cache"]

    /// Why `result` and its journal (whose `inputs`) cannot make a record
    /// (nil: they can).
    package static func refusal(
        _ result: RunResult, recording: DependencyJournal.Recording,
        inputs: [DependencyJournal.Entry]
    ) -> String? {
        if let tainted = recording.tainted { return tainted }
        guard result.status == .succeeded else { return "the run did not succeed" }
        guard !result.upToDateOrder.isEmpty else { return "no step was up to date" }
        guard result.records.allSatisfy({ $0.status == .upToDate && $0.upToDateFrom == .local }),
            result.omitted.byStatus.keys.allSatisfy({ $0 == .upToDate }),
            result.upToDateOrder.count == result.records.count + result.omitted.count
        else {
            return "a step was not up to date in the local store"
        }
        guard result.stats.isEmpty, result.groups.allSatisfy({ $0.thresholds.isEmpty }) else {
            return "the run has statistics or thresholds to show"
        }
        // Racily clean: a path changed in the second before the run, or
        // after it began, may change again and look the same.
        let margin: Int64 = 1_000_000_000
        for entry in inputs {
            if case .file(_, _, let modified, let changed, _, _) = entry.seen,
                modified > recording.started - margin || changed > recording.started - margin
            {
                return "\(entry.path) changed less than a second before the run"
            }
            if entry.path.utf8.contains(UInt8(ascii: "\n")) { return "a path holds a line break" }
            if case .path(let value) = entry.seen, value.utf8.contains(UInt8(ascii: "\n")) {
                return "a value holds a line break"
            }
        }
        return nil
    }

    // MARK: - The file

    /// The record's text: a line of format, then one line per fact, the
    /// path (which may hold anything but a line break) last.
    package var text: String {
        var text = Self.format + "\n" + "key " + key + "\n" + "workflow " + workflow + "\n"
        text.reserveCapacity(entries.count * 90 + shown.count * 20)
        text += "omitted \(omitted)\n"
        for step in kept {
            text += "kept \(step.attempts) \(step.kind) \(step.label.map { "=" + $0 } ?? "-") \(step.id)\n"
        }
        for id in shown { text += "shown " + id + "\n" }
        for entry in entries {
            let look = String(UnicodeScalar(entry.look.rawValue))
            switch entry.seen {
            case .missing:
                text += "missing \(look) \(entry.path)\n"
            case .file(let mode, let size, let modified, let changed, let inode, let device):
                text += "file \(look) \(mode) \(size) \(modified) \(changed) \(Int64(bitPattern: inode)) \(Int64(bitPattern: device)) \(entry.path)\n"
            case .path(let value):
                text += "text \(look) \(value.utf8.count) \(value)\(entry.path)\n"
            }
        }
        return text
    }

    /// Writes the record atomically (its folder made when missing); a
    /// failure is silent: the next run decides each step, as always.
    package func write(to path: String) {
        var bytes = Array(text.utf8)
        let folder = Paths.parent(of: path)
        try? FileSystem().makeDirectories(folder)
        try? bytes.withUnsafeMutableBytes { buffer in
            try FileSystem().writeAtomically(path, contents: UnsafeRawBufferPointer(buffer), durable: false)
        }
    }

    /// The record at `path` when it is one of `key`; nil otherwise. Read
    /// without the dependency journal noting it (it is not an input).
    /// `checking`: each path is looked at as its line is read, and the
    /// first that changed gives nil (no entries are kept): the no-op's
    /// own test, without a string a path.
    package static func read(_ path: String, key: String, checking: Bool = false) -> NoOpRecord? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size < 64 << 20 else { return nil }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        let count = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        guard count == bytes.count else { return nil }
        return parse(bytes, key: key, checking: checking)
    }

    /// The record `bytes` hold when it is one of `key` (with `checking`,
    /// as `read` says).
    package static func parse(_ bytes: [UInt8], key: String, checking: Bool = false) -> NoOpRecord? {
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)[...]
        guard lines.last?.isEmpty == true else { return nil }
        lines = lines.dropLast()
        guard let first = lines.popFirst(), String(decoding: first, as: UTF8.self) == format,
            let keyLine = lines.popFirst(), String(decoding: keyLine, as: UTF8.self) == "key " + key,
            let workflowLine = lines.popFirst(), workflowLine.starts(with: Array("workflow ".utf8))
        else { return nil }
        var record = NoOpRecord(
            key: key, workflow: String(decoding: workflowLine.dropFirst(9), as: UTF8.self), shown: [],
            kept: [], omitted: 0, entries: [])
        for line in lines {
            var fields = FieldReader(line)
            switch fields.word() {
            case "omitted":
                guard let count = fields.integer() else { return nil }
                record.omitted = count
            case "kept":
                guard let attempts = fields.integer() else { return nil }
                let kind = fields.word()
                let label = fields.word()
                record.kept.append(
                    Step(
                        id: fields.rest(), label: label.hasPrefix("=") ? String(label.dropFirst()) : nil,
                        kind: kind, attempts: attempts))
            case "shown":
                record.shown.append(fields.rest())
            case "missing":
                guard let look = fields.look() else { return nil }
                if checking, look != .resolved, look != .environment {
                    guard fields.restLooked(look) == nil else { return nil }
                    continue
                }
                record.entries.append(DependencyJournal.Entry(look: look, path: fields.rest(), seen: .missing))
            case "file":
                guard let look = fields.look(), let mode = fields.integer(), let size = fields.integer(),
                    let modified = fields.integer(), let changed = fields.integer(), let inode = fields.integer(),
                    let device = fields.integer()
                else { return nil }
                if checking {
                    guard look == .followed || look == .itself, let info = fields.restLooked(look),
                        info.st_mode == UInt32(truncatingIfNeeded: mode), Int(info.st_size) == size,
                        DependencyJournal.Seen.modified(info) == Int64(modified),
                        DependencyJournal.Seen.changed(info) == Int64(changed),
                        Int64(bitPattern: UInt64(info.st_ino)) == Int64(inode),
                        Int64(bitPattern: UInt64(info.st_dev)) == Int64(device)
                    else { return nil }
                    continue
                }
                record.entries.append(
                    DependencyJournal.Entry(
                        look: look, path: fields.rest(),
                        seen: .file(
                            mode: UInt32(truncatingIfNeeded: mode), size: Int64(size), modified: Int64(modified),
                            changed: Int64(changed), inode: UInt64(bitPattern: Int64(inode)),
                            device: UInt64(bitPattern: Int64(device)))))
            case "text":
                guard let look = fields.look(), let length = fields.integer() else { return nil }
                let both = Array(fields.rest().utf8)
                guard length >= 0, both.count >= length else { return nil }
                let entry = DependencyJournal.Entry(
                    look: look, path: String(decoding: both[length...], as: UTF8.self),
                    seen: .path(String(decoding: both[..<length], as: UTF8.self)))
                if checking {
                    guard entry.holds else { return nil }
                    continue
                }
                record.entries.append(entry)
            default:
                return nil
            }
        }
        return record
    }
}

/// Space-separated fields of one line of a record, the last the rest;
/// read as bytes (a record of a large tree has thousands of lines).
private struct FieldReader {
    private var bytes: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    private mutating func field() -> ArraySlice<UInt8> {
        let end = bytes.firstIndex(of: UInt8(ascii: " ")) ?? bytes.endIndex
        let field = bytes[..<end]
        bytes = end == bytes.endIndex ? bytes[end...] : bytes[(end + 1)...]
        return field
    }

    mutating func word() -> String {
        String(decoding: field(), as: UTF8.self)
    }

    /// A decimal integer (a `-` first for a negative one); nil for
    /// anything else or an overflow.
    mutating func integer() -> Int? {
        var digits = field()
        let negative = digits.first == UInt8(ascii: "-")
        if negative { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.count <= 19 else { return nil }
        var value = 0
        for byte in digits {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(Int(byte - 0x30))
            guard !overflow, !overflow2 else { return nil }
            value = sum
        }
        return negative ? -value : value
    }

    mutating func look() -> DependencyJournal.Look? {
        let field = field()
        guard field.count == 1 else { return nil }
        return DependencyJournal.Look(rawValue: field.first!)
    }

    /// `stat` (`.followed`) or `lstat` (`.itself`) of the rest as a path,
    /// nil when nothing is there; not noted in the dependency journal.
    mutating func restLooked(_ look: DependencyJournal.Look) -> stat? {
        defer { bytes = bytes[bytes.endIndex...] }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: bytes.count + 1) { path -> stat? in
            for (offset, byte) in bytes.enumerated() { path[offset] = CChar(bitPattern: byte) }
            path[bytes.count] = 0
            var info = stat()
            let found = look == .itself ? lstat(path.baseAddress!, &info) : stat(path.baseAddress!, &info)
            return found == 0 ? info : nil
        }
    }

    mutating func rest() -> String {
        defer { bytes = bytes[bytes.endIndex...] }
        return String(decoding: bytes, as: UTF8.self)
    }
}
