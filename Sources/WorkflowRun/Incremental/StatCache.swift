import Glibc
import PromiseEngine
import RunnerSystem

/// What the store saw of a file when it last hashed it, as git's index
/// keeps: a file whose size, modification and change times (in
/// nanoseconds) and inode are still those is not read again. A file
/// modified in the second its hash was taken, or later, is hashed again
/// (git's "racily clean" rule: a second write in the same clock tick
/// leaves the same times behind).
///
/// Kept in `.promise-run/stat-cache` beside the workflow, one line a file,
/// paths relative to the workflow's folder; read on first use, written
/// once when the run ends, and only when something was hashed. A cache
/// that cannot be read, or of another format, is an empty one.
/// See docs/language.md, 'Incremental steps'.
final class StatCache: Sendable {
    static let format = "promise-run-stat/1"

    struct Seen: Equatable {
        var size: Int64
        var modified: Int64
        var changed: Int64
        var inode: UInt64
        /// The second (wall clock) at which the hash was begun.
        var hashedAt: Int64
        var hash: String

        /// Whether `info` is the file this entry hashed, and the hash can
        /// be trusted: not modified in or after the second it was hashed.
        func holds(for info: stat) -> Bool {
            size == Int64(info.st_size) && modified == StatCache.nanoseconds(info.st_mtim)
                && changed == StatCache.nanoseconds(info.st_ctim) && inode == UInt64(info.st_ino)
                && Int64(info.st_mtim.tv_sec) < hashedAt
        }
    }

    private struct State {
        var loaded = false
        var entries: [String: Seen] = [:]
        var changed = false
    }

    /// The cache file.
    let path: String
    /// The workflow's folder: keys are relative to it.
    let root: String
    private let state = Lock(State())

    init(workflowDirectory: String) {
        root = Paths.normalized(workflowDirectory)
        path = Paths.join(workflowDirectory, ".promise-run/stat-cache")
    }

    /// The content hash of the file at `absolutePath` (`unreadable` when it
    /// is not a readable regular file), read only when its stat changed.
    func hash(_ absolutePath: String) -> String {
        // Followed, as the read is: a link among sources counts by its target.
        guard let info = FileSystem.look(absolutePath, .followed), (info.st_mode & S_IFMT) == S_IFREG else {
            return Fingerprint.contentHash(absolutePath)
        }
        let key = relativeKey(absolutePath)
        if let key,
            let seen = state.withLock({ state -> Seen? in
                if !state.loaded { load(into: &state) }
                return state.entries[key]
            }), seen.holds(for: info)
        {
            return seen.hash
        }
        let now = Self.now()
        let hash = Fingerprint.contentHash(absolutePath)
        guard let key, hash != "unreadable" else { return hash }
        let seen = Seen(
            size: Int64(info.st_size), modified: Self.nanoseconds(info.st_mtim), changed: Self.nanoseconds(info.st_ctim),
            inode: UInt64(info.st_ino), hashedAt: Int64(now.tv_sec), hash: hash)
        state.withLock { state in
            if state.entries[key] != seen {
                state.entries[key] = seen
                state.changed = true
            }
        }
        return hash
    }

    /// Writes the cache (atomically) when something was hashed since it
    /// was read, without the files that are gone (a deleted source's entry
    /// would be carried forever).
    func save() {
        let entries: [String: Seen]? = state.withLock { state in
            guard state.changed else { return nil }
            state.changed = false
            return state.entries
        }
        guard let entries else { return }
        var text = Self.format + "\n"
        text.reserveCapacity(entries.count * 100)
        for (key, seen) in entries.sorted(by: { $0.key < $1.key }) {
            var info = stat()
            guard lstat(key.hasPrefix("/") ? key : root + "/" + key, &info) == 0 else { continue }
            text += "\(seen.size) \(seen.modified) \(seen.changed) \(seen.inode) \(seen.hashedAt) \(seen.hash) \(key)\n"
        }
        var bytes = Array(text.utf8)
        try? bytes.withUnsafeMutableBytes { buffer in
            try FileSystem().writeAtomically(path, contents: UnsafeRawBufferPointer(buffer), durable: false)
        }
    }

    /// The key of a file: its path relative to the workflow's folder, or
    /// the absolute path of one outside it; nil for a name the file's
    /// lines cannot hold (a line break in it), which is then always read.
    private func relativeKey(_ absolutePath: String) -> String? {
        guard !absolutePath.utf8.contains(UInt8(ascii: "\n")) else { return nil }
        let prefix = root == "/" ? "/" : root + "/"
        return absolutePath.hasPrefix(prefix) ? String(absolutePath.dropFirst(prefix.count)) : absolutePath
    }

    private func load(into state: inout State) {
        state.loaded = true
        guard case .success(let bytes) = FileSystem.readBytes(path) else { return }
        state.entries = Self.parse(bytes)
    }

    /// The entries of a cache file's bytes; none when its first line is
    /// not this format. A line that does not parse is left out.
    static func parse(_ bytes: [UInt8]) -> [String: Seen] {
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true)
        guard let first = lines.first, String(decoding: first, as: UTF8.self) == format else { return [:] }
        var entries: [String: Seen] = [:]
        entries.reserveCapacity(lines.count)
        for line in lines.dropFirst() {
            // Six numbers and a hash separated by one space, then the path
            // (which may hold spaces).
            let fields = line.split(separator: UInt8(ascii: " "), maxSplits: 6, omittingEmptySubsequences: false)
            guard fields.count == 7, let size = Int64(decimal: fields[0]), let modified = Int64(decimal: fields[1]),
                let changed = Int64(decimal: fields[2]), let inode = UInt64(decimal: fields[3]),
                let hashedAt = Int64(decimal: fields[4]), fields[5].count == 32, !fields[6].isEmpty
            else { continue }
            entries[String(decoding: fields[6], as: UTF8.self)] = Seen(
                size: size, modified: modified, changed: changed, inode: inode, hashedAt: hashedAt,
                hash: String(decoding: fields[5], as: UTF8.self))
        }
        return entries
    }

    /// The wall clock now, as file times are kept.
    static func now() -> timespec {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return now
    }

    static func nanoseconds(_ time: timespec) -> Int64 {
        Int64(time.tv_sec) &* 1_000_000_000 &+ Int64(time.tv_nsec)
    }
}

extension FixedWidthInteger {
    /// The value of ASCII decimal digits (a `-` first for a negative one);
    /// nil for anything else or an overflow.
    fileprivate init?(decimal bytes: ArraySlice<UInt8>) {
        var digits = bytes[...]
        let negative = digits.first == UInt8(ascii: "-")
        if negative { digits = digits.dropFirst() }
        guard !digits.isEmpty else { return nil }
        var value: Self = 0
        for byte in digits {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) =
                negative
                ? times.subtractingReportingOverflow(Self(byte - 0x30))
                : times.addingReportingOverflow(Self(byte - 0x30))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
        }
        self = value
    }
}
