import PromiseEngine

/// Why a cache request did not give an answer. `unreachable` and `timeout`
/// stop the run from using the store (one warning, not one a step);
/// `refused` (401, 403, or another status on a write) and `failed` are
/// said and the step runs.
package struct CacheProblem: Error, Sendable {
    package enum Kind: Sendable {
        case unreachable, timeout, refused, failed
    }

    package var kind: Kind
    package var message: String

    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
}

/// A shared cache's objects: `ac/KEY` (a step's entry, JSON)
/// and `cas/SHA256` (a file's contents), read and written whole. Every
/// promise is rejected only with a `CacheProblem`.
/// See docs/language.md, 'A shared cache'.
protocol CacheStore: Sendable {
    /// The object into `path` (atomically: the file appears whole or not
    /// at all); false when the store has no such object. An object of
    /// more than `limit` bytes is refused (`failed`) as soon as that shows,
    /// and so is one that is not a regular file: a store never holds the
    /// run with an endless object.
    func download(_ name: String, to path: String, limit: Int) -> Promise<Bool>
    /// Whether the store has the object.
    func contains(_ name: String) -> Promise<Bool>
    /// Stores the file's contents under `name`.
    func upload(_ name: String, file path: String) -> Promise<Void>
}
