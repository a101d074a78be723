import CSystemShims
import Glibc
import PromiseEngine

/// Wall-clock time for reports (PromiseEngine has no Foundation).
package enum WallClock {
    /// Seconds since the Unix epoch.
    package static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}
