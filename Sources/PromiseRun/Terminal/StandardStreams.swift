import CommandLineOptions
import Glibc
import RunnerSystem

/// Writing to standard output and error, and what kind of files they are.
enum StandardStreams {
    static func writeOutput(_ text: String) {
        write(text, to: 1)
    }

    static func writeError(_ text: String) {
        write(text, to: 2)
    }

    private static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { write(UnsafeRawBufferPointer($0), to: descriptor) }
    }

    /// Writes all of `bytes` to `descriptor` (again after a signal); on an
    /// error (a reader that went away), what is left is dropped.
    static func write(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }

    /// True when `--color` (or, for auto, the terminal and `NO_COLOR`) asks
    /// for color on standard error.
    static func useColor(_ mode: ColorMode, descriptor: Int32 = 2) -> Bool {
        switch mode {
        case .always: return true
        case .never: return false
        case .auto:
            if let noColor = ProcessEnvironment.value("NO_COLOR"), !noColor.isEmpty { return false }
            // A terminal that says it understands no escape sequences.
            if ProcessEnvironment.value("TERM") == "dumb" { return false }
            return isatty(descriptor) == 1
        }
    }
}
