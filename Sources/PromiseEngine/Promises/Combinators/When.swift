// when(fulfilled:): all values, or the first failure.

/// A promise of every input's value, in input order. It fails with the first
/// input that fails (or is cancelled when the first to end early was
/// cancelled). With `cancelOthersOnFailure`, that first failure asks the
/// other inputs to cancel. Cancelling the result asks every input to cancel.
/// Progress is the mean of the inputs' progress.
///
/// ```swift
/// when(fulfilled: urls.map { fetch($0) }).done { pages in print(pages.count) }
/// ```
public func when<Value: Sendable>(
    fulfilled promises: [Promise<Value>],
    cancelOthersOnFailure: Bool = false
) -> Promise<[Value]> {
    guard !promises.isEmpty else { return Promise(value: []) }
    let result = Promise<[Value]>(upstream: nil)
    let values = SlotBuffer<Value>(count: promises.count)
    let inputs = CombinatorInputs(promises)
    let receiver: @Sendable (Int, Outcome<Value>, inout Drain) -> Void = { index, outcome, drain in
        switch outcome {
        case .fulfilled(let value):
            if values.fill(index, with: value) {
                result.settle(.fulfilled(values.all()), &drain)
                inputs.release()
            }
        case .rejected, .cancelled:
            let failure: Outcome<[Value]> = outcome.map { _ in [] }
            if result.settle(failure, &drain) {
                if cancelOthersOnFailure { inputs.cancel(except: index) } else { inputs.release() }
            }
        }
    }
    result.observeInputs(promises, held: inputs, receiver)
    return result
}

/// A promise of every input's value, for inputs of different types:
/// `when(fulfilled: user, orders, settings)` gives `(User, [Order], Settings)`.
/// Fails as the array form does.
///
/// ```swift
/// when(fulfilled: fetchUser(id), fetchOrders(id)).done { user, orders in
///     show(user, orders)
/// }
/// ```
public func when<each Value: Sendable>(
    fulfilled promises: repeat Promise<each Value>,
    cancelOthersOnFailure: Bool = false
) -> Promise<(repeat each Value)> {
    var signals: [Promise<Void>] = []
    for promise in repeat each promises {
        signals.append(promise.asVoid())
    }
    let box = PackBox(repeat each promises)
    return when(fulfilled: signals, cancelOthersOnFailure: cancelOthersOnFailure).map { _ in
        box.values()
    }
}

/// Holds a pack of promises until all are fulfilled, then reads their values.
final class PackBox<each Value: Sendable>: Sendable {
    let promises: (repeat Promise<each Value>)

    init(_ promises: repeat Promise<each Value>) {
        self.promises = (repeat each promises)
    }

    /// The values; only once every promise is fulfilled.
    func values() -> (repeat each Value) {
        (repeat (each promises).outcome!.value!)
    }
}

/// A promise of every input's value by key: `[K: Promise<V>]` to `[K: V]`.
/// Fails as the array form does.
///
/// ```swift
/// when(fulfilled: ["en": fetch(enURL), "fr": fetch(frURL)]).done { byLanguage in
///     print(byLanguage["fr"] ?? "")
/// }
/// ```
public func when<Key: Hashable & Sendable, Value: Sendable>(
    fulfilled promises: [Key: Promise<Value>],
    cancelOthersOnFailure: Bool = false
) -> Promise<[Key: Value]> {
    let keys = Array(promises.keys)
    let inputs = keys.map { promises[$0]! }
    return when(fulfilled: inputs, cancelOthersOnFailure: cancelOthersOnFailure).map { values in
        Dictionary(uniqueKeysWithValues: zip(keys, values))
    }
}
