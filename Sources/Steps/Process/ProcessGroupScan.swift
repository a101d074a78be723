import Glibc
import RunnerSystem

/// Which processes of a process group are still alive, read from /proc.
///
/// `kill(-pgid, 0)` cannot tell: it also succeeds while the only member is
/// the leader we have not reaped yet (a zombie, kept on purpose so that the
/// group id cannot be reused while we may still signal it).
enum ProcessGroupScan {
    /// The pids of the live (not zombie) members of process group `pgid`.
    static func liveMembers(of pgid: pid_t) -> [pid_t] {
        var members: [pid_t] = []
        forEachProcess { pid, info in
            if info.group == pgid { members.append(pid) }
        }
        return members
    }

    /// How many live (not zombie) processes each process group has: one
    /// pass over /proc for every group at once.
    static func liveGroups() -> [pid_t: Int] {
        var groups: [pid_t: Int] = [:]
        forEachProcess { _, info in groups[info.group, default: 0] += 1 }
        return groups
    }

    /// Every live process whose marks start with `prefix` (one runner's):
    /// pid, group and those marks; and how many processes were inside
    /// execve, their marks not readable yet (any of them may be one more).
    /// Only processes that started after promise-run are read for marks.
    static func markedProcesses(prefix: String) -> MarkScan {
        var scan = MarkScan()
        forEachProcess { pid, info in
            guard info.started >= selfStarted else { return }
            switch StepMarkers.reading(of: pid) {
            case .marks(let all):
                let marks = all.filter { $0.hasPrefix(prefix) }
                if !marks.isEmpty {
                    scan.processes.append(MarkedProcess(pid: pid, group: info.group, marks: marks.map(String.init)))
                }
            case .betweenImages:
                scan.betweenImages.append(pid)
            case .none:
                break
            }
        }
        return scan
    }

    /// Every live process, with its state, group and start time.
    static func forEachProcess(_ body: (pid_t, (state: UInt8, group: pid_t, started: UInt64)) -> Void) {
        guard let folder = opendir("/proc") else { return }
        defer { closedir(folder) }
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        while let entry = readdir(folder) {
            // The name is read where it is: copying the whole `dirent` would
            // read past the last record of readdir's buffer (a record is
            // only as long as its name), into memory that may be unmapped.
            let name = UnsafeRawPointer(entry).advanced(by: nameOffset).assumingMemoryBound(to: UInt8.self)
            var value: pid_t = 0
            var index = 0
            var numeric = true
            while name[index] != 0 {
                let byte = name[index]
                guard byte >= 0x30, byte <= 0x39, index < 10 else {
                    numeric = false
                    break
                }
                value = value * 10 + pid_t(byte - 0x30)
                index += 1
            }
            guard numeric, value > 0, let info = details(of: value) else { continue }
            if info.state != UInt8(ascii: "Z"), info.state != UInt8(ascii: "X") { body(value, info) }
        }
    }

    /// Whether any member of the group is alive, by one /proc scan shared
    /// by every caller on the event loop for a few milliseconds:
    /// a thousand groups being torn down cost one scan per tick, not a
    /// thousand. `existedBy` is a moment the group already existed: a scan
    /// begun before it cannot say the group is gone, so it is taken again.
    static func hasLiveMembersShared(_ pgid: pid_t, existedBy: ContinuousClock.Instant) -> Bool {
        if kill(-pgid, 0) != 0, errno == ESRCH { return false }
        return GroupCensus.shared.value.liveGroups(scannedAfter: existedBy)[pgid] != nil
    }

    /// Whether the process is alive (exists and is not a zombie).
    static func isAlive(_ pid: pid_t) -> Bool {
        guard let info = status(of: pid) else { return false }
        return info.state != UInt8(ascii: "Z") && info.state != UInt8(ascii: "X")
    }

    /// The process's command line, arguments joined by spaces, at most 120
    /// characters.
    static func commandLine(of pid: pid_t) -> String {
        let fd = open("/proc/\(pid)/cmdline", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "?" }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return "?" }
        var bytes = Array(buffer[..<count])
        while bytes.last == 0 { bytes.removeLast() }
        let text = String(decoding: bytes.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
        return text.count > 120 ? String(text.prefix(119)) + "…" : text
    }

    /// Whether any member of the group is alive.
    static func hasLiveMembers(_ pgid: pid_t) -> Bool {
        // Cheap first: no member at all, zombie or not.
        if kill(-pgid, 0) != 0, errno == ESRCH { return false }
        return !liveMembers(of: pgid).isEmpty
    }

    /// A process's state letter and process group, from /proc/PID/stat:
    /// `pid (comm) S ppid pgrp ...`; comm may hold spaces and parentheses,
    /// so the fields are counted from the last `)`.
    static func status(of pid: pid_t) -> (state: UInt8, group: pid_t)? {
        details(of: pid).map { ($0.state, $0.group) }
    }

    /// State, group and start time (clock ticks after boot, field 22).
    static func details(of pid: pid_t) -> (state: UInt8, group: pid_t, started: UInt64)? {
        let fd = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        let text = buffer[..<count]
        guard let end = text.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = text[(end + 1)...].split(separator: UInt8(ascii: " "), maxSplits: 21)
        guard fields.count >= 21, let state = fields[0].first,
            let group = pid_t(String(decoding: fields[2], as: UTF8.self)),
            let started = UInt64(String(decoding: fields[19], as: UTF8.self))
        else { return nil }
        return (state, group, started)
    }

    /// When this process started (clock ticks after boot): a process that
    /// started before it cannot carry one of its marks.
    static let selfStarted: UInt64 = details(of: getpid())?.started ?? 0
}

/// What one scan of /proc found of a runner's marks.
struct MarkScan {
    /// The live processes with its marks.
    var processes: [MarkedProcess] = []
    /// Processes inside execve, whose marks could not be read yet.
    var betweenImages: [pid_t] = []

    /// Nothing marked, and nothing that may turn out to be.
    var isEmpty: Bool { processes.isEmpty && betweenImages.isEmpty }
}

/// The processes a scan found inside execve, followed one by one until
/// each shows its marks or is gone. A scan that finds nothing of a runner's
/// (or a step's) is conclusive once these are settled: any process of its
/// was either read by the scan, or was one of these, or was started later
/// by one of them. On a busy machine a fresh scan nearly always finds some
/// process of someone else's inside execve; rescanning until one finds
/// none could take seconds.
struct ImagesToFollow {
    private(set) var pids: [pid_t]

    init(_ pids: [pid_t]) { self.pids = pids }

    /// Reads each again: returns whether one now shows a mark `isOurs`
    /// accepts; keeps those still inside execve.
    mutating func followed(isOurs: (Substring) -> Bool) -> Bool {
        var still: [pid_t] = []
        var ours = false
        for pid in pids {
            switch StepMarkers.reading(of: pid) {
            case .marks(let marks): if marks.contains(where: isOurs) { ours = true }
            case .betweenImages: still.append(pid)
            case .none: break
            }
        }
        pids = still
        return ours
    }

    /// Every one of them has shown its marks or is gone.
    var isSettled: Bool { pids.isEmpty }
}

/// A live process with this runner's step marks.
struct MarkedProcess {
    var pid: pid_t
    /// Its group when the scan read it: it may have moved since (`setsid`).
    var group: pid_t
    var marks: [String]

    /// Signals it, and its whole group when it leads one of its own (a
    /// `setsid` child, a daemon): what it started there goes with it. The
    /// group is read again here: one it founded after the scan counts.
    func signal(_ signal: Int32) {
        if getpgid(pid) == pid { kill(-pid, signal) }
        kill(pid, signal)
    }

    /// One round of a teardown: SIGKILL when `killing`, else SIGTERM (and
    /// SIGCONT: a stopped process acts on nothing) the first time
    /// `terminated` sees it.
    func end(killing: Bool, terminated: inout Set<pid_t>) {
        if killing {
            signal(SIGKILL)
        } else if terminated.insert(pid).inserted {
            signal(SIGTERM)
            signal(SIGCONT)
        }
    }
}

/// The live process groups, and the processes of this runner's steps
/// wherever they went, from one /proc scan kept for a few milliseconds.
/// Event loop thread only.
final class GroupCensus {
    /// The census of the event loop's teardown polls, used on its thread only.
    static let shared = LoopBound(handingOver: GroupCensus(), to: .shared)
    /// How long a scan is reused: at least 10 ms, and twice as long as the
    /// scan took (with thousands of processes a scan takes tens of ms;
    /// rescanning for every caller would make teardown quadratic).
    private var maximumAge: Duration
    /// The least time a scan is reused.
    private let minimumAge: Duration
    /// When the last scan began: what it says is true as of then, however
    /// long it took (under load, hundreds of milliseconds).
    private(set) var taken: ContinuousClock.Instant?
    private var groups: [pid_t: Int] = [:]
    private var byMark: [String: [MarkedProcess]] = [:]
    /// Processes inside execve at the last scan: their marks were not
    /// readable yet.
    private(set) var betweenImages: [pid_t] = []

    init(minimumAge: Duration = .milliseconds(10)) {
        self.minimumAge = minimumAge
        maximumAge = minimumAge
    }

    /// The live groups and how many live processes each has, from a scan
    /// begun after `moment`: a group or process that came into being after
    /// an older scan began is missing from it, and must not read as gone.
    func liveGroups(scannedAfter moment: ContinuousClock.Instant) -> [pid_t: Int] {
        refresh(after: moment)
        return groups
    }

    /// The live processes that carry `mark`, from a scan begun after `moment`.
    func processes(marked mark: String, scannedAfter moment: ContinuousClock.Instant) -> [MarkedProcess] {
        refresh(after: moment)
        return byMark[mark] ?? []
    }

    /// The live processes with a mark that starts with `prefix` (one
    /// runner's), and how many could not be read yet, from a scan begun
    /// after `moment`.
    func processes(markedWithPrefix prefix: String, scannedAfter moment: ContinuousClock.Instant) -> MarkScan {
        refresh(after: moment)
        var scan = MarkScan(betweenImages: betweenImages)
        var seen: Set<pid_t> = []
        for (mark, processes) in byMark where mark.hasPrefix(prefix) {
            for process in processes where seen.insert(process.pid).inserted { scan.processes.append(process) }
        }
        return scan
    }

    private func refresh(after moment: ContinuousClock.Instant) {
        if let taken, taken > moment, taken.duration(to: .now) < maximumAge { return }
        let start = ContinuousClock.now
        var groups: [pid_t: Int] = [:]
        var byMark: [String: [MarkedProcess]] = [:]
        var betweenImages: [pid_t] = []
        ProcessGroupScan.forEachProcess { pid, info in
            groups[info.group, default: 0] += 1
            guard info.started >= ProcessGroupScan.selfStarted else { return }
            switch StepMarkers.reading(of: pid) {
            case .marks(let marks):
                for mark in marks where mark.hasPrefix(StepMarkers.prefix) {
                    byMark[String(mark), default: []].append(MarkedProcess(pid: pid, group: info.group, marks: [String(mark)]))
                }
            case .betweenImages:
                betweenImages.append(pid)
            case .none:
                break
            }
        }
        self.groups = groups
        self.byMark = byMark
        self.betweenImages = betweenImages
        let end = ContinuousClock.now
        taken = start
        maximumAge = max(minimumAge, start.duration(to: end) * 2)
    }

    /// Forgets the last scan (the next question scans again).
    func invalidate() {
        taken = nil
    }
}
