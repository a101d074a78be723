import Glibc

/// Which processes of a process group are still alive, read from /proc.
///
/// `kill(-pgid, 0)` cannot tell: it also succeeds while the only member is
/// the leader we have not reaped yet (a zombie, kept on purpose so that the
/// group id cannot be reused while we may still signal it).
enum ProcessGroupScan {
    /// The pids of the live (not zombie) members of process group `pgid`.
    static func liveMembers(of pgid: pid_t) -> [pid_t] {
        var members: [pid_t] = []
        guard let folder = opendir("/proc") else { return members }
        defer { closedir(folder) }
        while let entry = readdir(folder) {
            let pid: pid_t? = withUnsafeBytes(of: entry.pointee.d_name) { name in
                var value: pid_t = 0
                for byte in name {
                    if byte == 0 { break }
                    guard byte >= 0x30, byte <= 0x39 else { return nil }
                    value = value * 10 + pid_t(byte - 0x30)
                }
                return value > 0 ? value : nil
            }
            guard let pid, let info = status(of: pid) else { continue }
            if info.group == pgid, info.state != UInt8(ascii: "Z"), info.state != UInt8(ascii: "X") {
                members.append(pid)
            }
        }
        return members
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
        let fd = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        let text = buffer[..<count]
        guard let end = text.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = text[(end + 1)...].split(separator: UInt8(ascii: " "), maxSplits: 4)
        guard fields.count >= 3, let state = fields[0].first,
              let group = pid_t(String(decoding: fields[2], as: UTF8.self)) else { return nil }
        return (state, group)
    }
}
