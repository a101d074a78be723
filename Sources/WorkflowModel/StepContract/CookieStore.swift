import PromiseEngine
import Synchronization

/// One cookie store of a run: the run's own, or an iteration's
/// (a virtual user's), which starts from a snapshot of the store around
/// its group as it was when the group started and is dropped with the
/// iteration. What it holds is the http steps' business (their cookie
/// jar, a value type): the model only carries it from the executor to
/// the steps.
/// See docs/language.md, 'Load'.
package final class CookieStore: Sendable {
    private let contents: Lock<(any Sendable)?>
    /// Whether it holds nothing, readable without the lock: a request to a
    /// store without cookies (most runs' every request) skips the store.
    private let empty: Atomic<Bool>

    /// A store holding `contents` (a snapshot of another), or nothing.
    package init(startingFrom contents: (any Sendable)? = nil) {
        empty = Atomic(contents == nil)
        self.contents = Lock(contents)
    }

    /// Whether it holds nothing (its holder keeps nothing for an empty
    /// jar): as of some moment during the call.
    package var isEmpty: Bool { empty.load(ordering: .acquiring) }

    /// What the store holds now: a value, so later changes to the store
    /// do not reach it.
    package func snapshot() -> (any Sendable)? {
        contents.withLock { $0 }
    }

    /// Reads or changes what the store holds, under its lock.
    package func withContents<Result: Sendable>(_ body: (inout (any Sendable)?) -> Result) -> Result {
        contents.withLock { contents in
            let result = body(&contents)
            empty.store(contents == nil, ordering: .releasing)
            return result
        }
    }
}
