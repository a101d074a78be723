/// Something waiting for a promise's outcome: a derived promise, a
/// combinator's input slot, an awaiting task.
///
/// Observers are objects (not closures) so that a derived promise is its own
/// observer and a link in a chain costs one allocation.
@usableFromInline
protocol PromiseObserver<Input>: AnyObject, Sendable {
    associatedtype Input: Sendable
    /// Called exactly once, with the outcome of the observed promise.
    func receive(_ outcome: Outcome<Input>, _ drain: inout Drain)
}

/// An observer that calls a closure. For the rare paths (async bridging,
/// progress of combinators) where a dedicated class is not worth it.
@usableFromInline
final class ClosureObserver<Input: Sendable>: PromiseObserver {
    @usableFromInline let body: @Sendable (Outcome<Input>) -> Void

    @usableFromInline
    init(_ body: @escaping @Sendable (Outcome<Input>) -> Void) {
        self.body = body
    }

    @usableFromInline
    func receive(_ outcome: Outcome<Input>, _ drain: inout Drain) {
        body(outcome)
    }
}

/// The observers of one promise, in registration order. The first is kept
/// inline: most promises have exactly one.
@usableFromInline
struct ObserverList<Value: Sendable> {
    @usableFromInline var first: (any PromiseObserver<Value>)?
    @usableFromInline var rest: [any PromiseObserver<Value>] = []

    @usableFromInline
    init() {}

    @usableFromInline
    var isEmpty: Bool { first == nil }

    @usableFromInline
    mutating func append(_ observer: any PromiseObserver<Value>) {
        if first == nil {
            first = observer
        } else {
            rest.append(observer)
        }
    }

    @usableFromInline
    func notify(_ outcome: Outcome<Value>, _ drain: inout Drain) {
        guard let first else { return }
        first.receive(outcome, &drain)
        for observer in rest {
            observer.receive(outcome, &drain)
        }
    }
}
