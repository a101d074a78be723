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

/// The observers of one promise, in registration order. The first is kept
/// inline: most promises have exactly one.
@usableFromInline
struct ObserverList {
    @usableFromInline var first: Observer?
    @usableFromInline var rest: [Observer] = []

    @inlinable
    init() {}

    @inlinable
    var isEmpty: Bool { first == nil }

    @inlinable
    mutating func append(_ observer: @escaping Observer) {
        if first == nil {
            first = observer
        } else {
            rest.append(observer)
        }
    }

    @inlinable
    func notify(_ outcome: UnsafeRawPointer, _ drain: inout Drain) {
        guard let first else { return }
        first(outcome, &drain)
        for observer in rest {
            observer(outcome, &drain)
        }
    }
}
