// `timespec`'s members can be credited to CSystemShims (its header includes
// <time.h>), so this file imports it though it calls only libc.
import CSystemShims
package import Glibc
import PromiseEngine
import Synchronization

/// Every file, folder and link a run looked at, and what it saw of each:
/// what a no-op run depends on, so that the next identical invocation can
/// tell, with one `stat` a path, that nothing it read has changed
/// (docs/language.md, 'Incremental steps: sources and generates': the no-op record).
///
/// The file system's readers note what they look at (`FileSystem.read`,
/// `readChunks`, `exists`, folder listings, the glob's and the stat
/// cache's `stat`s) while the journal records; it stops at the first step
/// that truly runs (a run that does work is no no-op), at 100,000 paths,
/// and at anything it cannot vouch for (`taint`). A path seen twice with
/// different results (changed while the run read it) taints it too.
package final class DependencyJournal: Sendable {
    /// The one journal of the process.
    package static let shared = DependencyJournal()

    /// How a path was looked at: following links (`stat`, an open), as
    /// itself (`lstat`), or resolved to its real path (`realpath`); or,
    /// for an environment variable's name, its value (`getenv`).
    package enum Look: UInt8, Sendable {
        case followed = 0x73  // "s"
        case itself = 0x6C  // "l"
        case resolved = 0x72  // "r"
        case environment = 0x65  // "e"
    }

    /// What a look found: nothing there, a file's identity and times, or
    /// a text (the real path; the variable's value).
    package enum Seen: Equatable, Sendable {
        case missing
        case file(mode: UInt32, size: Int64, modified: Int64, changed: Int64, inode: UInt64, device: UInt64)
        case path(String)

        /// The identity and times of `info`.
        package init(_ info: stat) {
            self = .file(
                mode: info.st_mode, size: Int64(info.st_size), modified: Self.modified(info),
                changed: Self.changed(info), inode: UInt64(info.st_ino), device: UInt64(info.st_dev))
        }

        /// `info`'s modification time in nanoseconds.
        package static func modified(_ info: stat) -> Int64 { nanoseconds(info.st_mtim) }

        /// `info`'s status change time in nanoseconds.
        package static func changed(_ info: stat) -> Int64 { nanoseconds(info.st_ctim) }

        // Not `package`: `timespec` in a signature is credited to Glibc or to
        // CSystemShims depending on the build (both headers include <time.h>).
        static func nanoseconds(_ time: timespec) -> Int64 {
            Int64(time.tv_sec) &* 1_000_000_000 &+ Int64(time.tv_nsec)
        }
    }

    /// One path as the run saw it.
    package struct Entry: Equatable, Sendable {
        package var look: Look
        package var path: String
        package var seen: Seen

        package init(look: Look, path: String, seen: Seen) {
            self.look = look
            self.path = path
            self.seen = seen
        }

        /// Looks again: what is there now.
        package func again() -> Seen {
            switch look {
            case .followed, .itself:
                var info = stat()
                let found = look == .followed ? stat(path, &info) : lstat(path, &info)
                return found == 0 ? Seen(info) : .missing
            case .resolved:
                guard let real = realpath(path, nil) else { return .missing }
                defer { free(real) }
                return .path(String(cString: real))
            case .environment:
                return getenv(path).map { .path(String(cString: $0)) } ?? .missing
            }
        }

        /// Whether the path is still as the run saw it.
        package var holds: Bool { again() == seen }
    }

    /// What a finished recording holds.
    package struct Recording: Sendable {
        /// Every path, once, in the order first looked at.
        package var entries: [Entry]
        /// Why it cannot vouch for the run (nil when it can).
        package var tainted: String?
        /// When it began (wall clock, nanoseconds since 1970).
        package var started: Int64
    }

    private struct Key: Hashable {
        var look: UInt8
        var path: String
    }

    private struct State {
        var index: [Key: Int] = [:]
        var entries: [Entry] = []
        var tainted: String?
        var started: Int64 = 0
    }

    static let limit = 100_000
    private let recording = Atomic<Bool>(false)
    private let state = Lock(State())

    package init() {}

    /// Whether looks are being noted: one atomic load, for the readers.
    @inline(__always)
    package var isRecording: Bool { recording.load(ordering: .relaxed) }

    /// Starts a recording, forgetting any before.
    package func start() {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        state.withLock { state in
            state = State()
            state.started = Seen.nanoseconds(now)
        }
        recording.store(true, ordering: .relaxed)
    }

    /// Ends the recording: what it holds (nil when none was started).
    package func finish() -> Recording? {
        recording.store(false, ordering: .relaxed)
        return state.withLock { state in
            guard state.started != 0 else { return nil }
            let made = Recording(entries: state.entries, tainted: state.tainted, started: state.started)
            state = State()
            return made
        }
    }

    /// The run did something a no-op does not (a step ran, a value was
    /// random or the time): the recording stops, vouching for nothing.
    package func taint(_ reason: String) {
        guard isRecording else { return }
        recording.store(false, ordering: .relaxed)
        state.withLock { state in
            if state.tainted == nil { state.tainted = reason }
            state.index = [:]
            state.entries = []
        }
    }

    /// Notes a `stat` (followed) or `lstat` (itself) of `path`: `info`, or
    /// nil when nothing was there.
    package func note(_ path: String, _ look: Look, _ info: stat?) {
        guard isRecording else { return }
        note(Entry(look: look, path: path, seen: info.map(Seen.init) ?? .missing))
    }

    /// Notes `realpath(path)`: `real`, or nil when it failed.
    package func noteResolved(_ path: String, _ real: String?) {
        guard isRecording else { return }
        note(Entry(look: .resolved, path: path, seen: real.map(Seen.path) ?? .missing))
    }

    /// Notes that the run read the environment variable `name`: `value`,
    /// or nil when it is not set.
    package func noteEnvironment(_ name: String, _ value: String?) {
        guard isRecording else { return }
        note(Entry(look: .environment, path: name, seen: value.map(Seen.path) ?? .missing))
    }

    private func note(_ entry: Entry) {
        let tainted: String? = state.withLock { state in
            let key = Key(look: entry.look.rawValue, path: entry.path)
            if let place = state.index[key] {
                return state.entries[place].seen == entry.seen ? nil : "\(entry.path) changed while the run read it"
            }
            guard state.entries.count < Self.limit else { return "more than \(Self.limit) paths" }
            state.index[key] = state.entries.count
            state.entries.append(entry)
            return nil
        }
        if let tainted { taint(tainted) }
    }
}
