/// A promise of the first input to be fulfilled; the others are asked to
/// cancel. When every input fails it rejects with `AllFailedError` holding
/// all errors in input order (a cancelled input counts as
/// `CancellationError`). Cancelling it asks every input to cancel; it then
/// settles as cancelled once no input can win. An empty list rejects with
/// `PromiseError.noInputs`.
///
/// ```swift
/// any([fetch(mirrorA), fetch(mirrorB)]).done { use($0) }   // the first that works
/// ```
public func any<Value: Sendable>(_ promises: [Promise<Value>]) -> Promise<Value> {
    guard !promises.isEmpty else { return Promise(error: PromiseError.noInputs) }
    let result = Promise<Value>(upstream: nil)
    let errors = SlotBuffer<any Error>(count: promises.count)
    let inputs = CombinatorInputs(promises)
    let receiver: @Sendable (Int, Outcome<Value>, inout Drain) -> Void = { index, outcome, drain in
        switch outcome {
        case .fulfilled:
            if result.settle(outcome, &drain) {
                inputs.cancel(except: index)
            }
        case .rejected(let error):
            if errors.fill(index, with: error) {
                settleAllFailed(result, errors, &drain)
                inputs.release()
            }
        case .cancelled:
            if errors.fill(index, with: CancellationError()) {
                settleAllFailed(result, errors, &drain)
                inputs.release()
            }
        }
    }
    result.observeInputs(promises, held: inputs, receiver)
    return result
}

private func settleAllFailed<Value>(_ result: Promise<Value>, _ errors: SlotBuffer<any Error>, _ drain: inout Drain) {
    if result.isCancelRequested {
        result.settle(.cancelled, &drain)
    } else {
        result.settle(.rejected(AllFailedError(errors: errors.all())), &drain)
    }
}
