import PromiseEngine

/// One cookie store of a run: the run's own, or an iteration's
/// (a virtual user's), which starts from a snapshot of the store around
/// its group as it was when the group started and is dropped with the
/// iteration. What it holds is the http steps' business (their cookie
/// jar, a value type): the model only carries it from the executor to
/// the steps.
/// See docs/language.md, 'Load'.
package final class CookieStore: Sendable {
    private let contents: Lock<(any Sendable)?>

    /// A store holding `contents` (a snapshot of another), or nothing.
    package init(startingFrom contents: (any Sendable)? = nil) {
        self.contents = Lock(contents)
    }

    /// What the store holds now: a value, so later changes to the store
    /// do not reach it.
    package func snapshot() -> (any Sendable)? {
        contents.withLock { $0 }
    }

    /// Reads or changes what the store holds, under its lock.
    package func withContents<Result: Sendable>(_ body: (inout (any Sendable)?) -> Result) -> Result {
        contents.withLock { body(&$0) }
    }
}
