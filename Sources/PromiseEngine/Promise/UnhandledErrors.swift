import Synchronization

/// Errors that no handler ever saw.
///
/// A promise that is rejected and released without anything having observed
/// it (no `then`, `catch`, `await`, no look at `outcome`) reports its error
/// here, so a failure is never lost silently. The runner installs a handler
/// that prints it; a library user may log it or fail a test.
///
/// ```swift
/// UnhandledErrors.setHandler { error in print("unhandled: \(error)") }
/// ```
public enum UnhandledErrors {
    private static let handler = Lock<(@Sendable (any Error) -> Void)?>(nil)

    /// Sets the function called with each unhandled error (nil: ignore them).
    /// It may be called on any thread.
    public static func setHandler(_ newHandler: (@Sendable (any Error) -> Void)?) {
        handler.withLock { $0 = newHandler }
    }

    static func report(_ error: any Error) {
        let current = handler.withLock { $0 }
        current?(error)
    }
}
