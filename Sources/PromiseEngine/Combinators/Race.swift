/// A promise that settles as the first input to settle does (fulfilled,
/// rejected or cancelled), and asks the others to cancel. Cancelling it asks
/// every input to cancel. An empty list rejects with `PromiseError.noInputs`.
///
/// ```swift
/// race(mirrors.map { fetch($0) }).done { use($0) }
/// ```
public func race<Value: Sendable>(_ promises: [Promise<Value>]) -> Promise<Value> {
    guard !promises.isEmpty else { return Promise(error: PromiseError.noInputs) }
    let result = Promise<Value>(upstream: nil)
    let inputs = CombinatorInputs(promises)
    let receiver: @Sendable (Int, Outcome<Value>, inout Drain) -> Void = { index, outcome, drain in
        if result.settle(outcome, &drain) {
            inputs.cancel(except: index)
        }
    }
    result.observeInputs(promises, held: inputs, combinesProgress: false, receiver)
    return result
}
