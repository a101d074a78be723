import CSystemShims
import Glibc

/// What promise-run learns of its own process: environment, folder, cores.
package enum ProcessEnvironment {
    /// The environment, as `NAME=VALUE` entries (the first of a name wins,
    /// as getenv reads them).
    package static func current() -> [String: String] {
        var environment: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            // Split at the first `=` as bytes (no character breaking: it
            // runs at every start, for every variable).
            let bytes = UnsafeBufferPointer(
                start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self),
                count: strlen(pointer))
            if let equals = bytes.firstIndex(of: UInt8(ascii: "=")) {
                let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[..<equals]), as: UTF8.self)
                if environment[name] == nil {
                    environment[name] = String(decoding: UnsafeBufferPointer(rebasing: bytes[(equals + 1)...]), as: UTF8.self)
                }
            }
            entry += 1
        }
        return environment
    }

    /// One variable, as getenv reads it (nil when unset): the one place
    /// promise-run reads a variable of its own process.
    package static func value(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// The current folder (absolute); `/` if it cannot be read.
    package static func currentDirectory() -> String {
        guard let pointer = getcwd(nil, 0) else { return "/" }
        defer { free(pointer) }
        return String(cString: pointer)
    }

    /// The cores online, at least 1 (the default of `-j`).
    package static func processorCount() -> Int {
        max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }

    /// Seconds since the Unix epoch.
    package static func wallClock() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}
