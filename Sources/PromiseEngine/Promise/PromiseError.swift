/// Errors raised by PromiseEngine itself.
///
/// ```swift
/// fetch(url).timeout(.seconds(1)).catch { error in
///     if case PromiseError.timedOut = error { print("too slow") }
/// }
/// ```
public enum PromiseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `compactMap`'s transform returned nil.
    case nilValue
    /// A handler returned the very promise it was meant to settle (Promises/A+ 2.3.1).
    case chainingCycle
    /// `timeout` expired before the promise settled.
    case timedOut(afterNanoseconds: Int64)
    /// `race` or `any` was given no promises.
    case noInputs
    /// A completion handler (`seal.resolve(value, error)`) gave neither.
    case noValueNorError
    /// An argument no call can honour, such as a concurrency limit below 1
    /// (PromiseKit's `PMKError.badInput`); the text says which.
    case badInput(String)

    public var description: String {
        switch self {
        case .nilValue: return "compactMap: the transform returned nil"
        case .chainingCycle: return "a promise cannot be resolved with itself"
        case .timedOut(let ns): return "timed out after \(Duration.nanoseconds(ns).formattedForHumans)"
        case .noInputs: return "race or any of no promises"
        case .noValueNorError: return "the completion handler gave neither a value nor an error"
        case .badInput(let what): return "bad input: \(what)"
        }
    }
}

/// `any` failed because every input failed: all their errors, in input order.
///
/// ```swift
/// any([fetch(mirrorA), fetch(mirrorB)]).catch { error in
///     for each in (error as? AllFailedError)?.errors ?? [] { print(each) }
/// }
/// ```
public struct AllFailedError: Error, Sendable, CustomStringConvertible {
    /// Every input's error, in the order of the inputs.
    public let errors: [any Error]
    /// An error carrying `errors`, in input order.
    public init(errors: [any Error]) { self.errors = errors }
    public var description: String {
        "all \(errors.count) promises failed: " + errors.map { "\($0)" }.joined(separator: "; ")
    }
}

extension Duration {
    /// `250ms`, `1.5s`, `2m3s`: short, for messages.
    package var formattedForHumans: String {
        let (seconds, attoseconds) = components
        let ms = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        if ms < 1000 { return "\(ms)ms" }
        if ms < 60_000 {
            let tenths = ms / 100
            return tenths % 10 == 0 ? "\(tenths / 10)s" : "\(tenths / 10).\(tenths % 10)s"
        }
        let totalSeconds = ms / 1000
        let h = totalSeconds / 3600
        let m = (totalSeconds % 3600) / 60
        let s = totalSeconds % 60
        var text = ""
        if h > 0 { text += "\(h)h" }
        if m > 0 { text += "\(m)m" }
        if s > 0 || text.isEmpty { text += "\(s)s" }
        return text
    }
}
