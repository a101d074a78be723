// when(resolved:): every outcome, never a failure.

/// A promise of every input's outcome, in input order, once all have
/// settled. It is always fulfilled. Cancelling it asks every input to cancel
/// (their outcomes then say so).
///
/// ```swift
/// when(resolved: uploads).done { outcomes in
///     print(outcomes.filter { $0.error != nil }.count, "uploads failed")
/// }
/// ```
public func when<Value: Sendable>(resolved promises: [Promise<Value>]) -> Promise<[Outcome<Value>]> {
    guard !promises.isEmpty else { return Promise(value: []) }
    let result = Promise<[Outcome<Value>]>(upstream: nil)
    let outcomes = SlotBuffer<Outcome<Value>>(count: promises.count)
    let inputs = CombinatorInputs(promises)
    let receiver: @Sendable (Int, Outcome<Value>, inout Drain) -> Void = { index, outcome, drain in
        if outcomes.fill(index, with: outcome) {
            result.settle(.fulfilled(outcomes.all()), &drain)
            inputs.release()
        }
    }
    result.observeInputs(promises, held: inputs, receiver)
    return result
}

/// Every input's outcome by key, once all have settled.
///
/// ```swift
/// when(resolved: ["a": upload(a), "b": upload(b)]).done { byName in
///     for (name, outcome) in byName where outcome.error != nil { print(name, "failed") }
/// }
/// ```
public func when<Key: Hashable & Sendable, Value: Sendable>(
    resolved promises: [Key: Promise<Value>]
) -> Promise<[Key: Outcome<Value>]> {
    let keys = Array(promises.keys)
    return when(resolved: keys.map { promises[$0]! }).map { outcomes in
        Dictionary(uniqueKeysWithValues: zip(keys, outcomes))
    }
}
