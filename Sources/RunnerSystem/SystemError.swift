import Glibc

/// The system's words for an errno value (`No such file or directory`).
package func systemReason(_ code: Int32) -> String {
    guard let text = strerror(code) else { return "error \(code)" }
    return String(cString: text)
}

/// A failed system call: which, on what, and errno.
package struct SystemCallError: Error, CustomStringConvertible {
    package var call: String
    package var code: Int32

    package init(_ call: String, code: Int32 = errno) {
        self.call = call
        self.code = code
    }

    package var description: String { "\(call): \(systemReason(code))" }
}

/// Retries a system call interrupted by a signal.
@inline(__always)
package func retryingOnInterrupt<T: BinaryInteger>(_ call: () -> T) -> T {
    while true {
        let result = call()
        if result >= 0 || errno != EINTR { return result }
    }
}

/// The text of a NUL-terminated C buffer that a C call filled in.
package func cText(_ buffer: [CChar]) -> String {
    buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
}
