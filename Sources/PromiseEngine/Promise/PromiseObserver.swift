/// Something waiting for a promise's outcome: a derived promise's handler, a
/// combinator's input slot, an awaiting task. Called exactly once, with a
/// pointer to the `Outcome<Value>` of the promise it observes (read it with
/// `Outcome.load(from:)`).
///
/// Observers are closures made in `@inlinable` code, so they are specialized
/// in the caller's module (as NIO's callbacks are), and their type does not
/// mention the value type, so the promise's locked state is not generic.
@usableFromInline
typealias Observer = @Sendable (UnsafeRawPointer, inout Drain) -> Void

extension Outcome {
    /// The outcome an observer's pointer points to.
    @inlinable
    static func load(from pointer: UnsafeRawPointer) -> Outcome<Value> {
        pointer.assumingMemoryBound(to: Outcome<Value>.self).pointee
    }
}
