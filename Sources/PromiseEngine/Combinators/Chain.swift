// OMPromises' `join` and `chain:initial:`: promises in sequence, with their
// progress combined as OMPromises does, each step an equal share.

extension Promise {
    /// The inner promise's outcome, from a promise of a promise (one level
    /// unwrapped: OMPromises' `join`). Progress is the outer promise's for
    /// the first half and the inner one's for the second. Cancelling it asks
    /// whichever is running.
    ///
    /// ```swift
    /// let lookup: Promise<Promise<Profile>> = directory.map { entry in fetchProfile(entry.id) }
    /// lookup.join().done { profile in show(profile) }
    /// ```
    public func join<Inner: Sendable>() -> Promise<Inner> where Value == Promise<Inner> {
        let steps = StepProgress<Inner>(count: 2)
        steps.track(self, as: 0)
        let unwrapped = then { inner -> Promise<Inner> in
            steps.track(inner, as: 1)
            return inner
        }
        return steps.finish(following: unwrapped)
    }
}

/// The value `initial` passed through `handlers` in order, each given the
/// previous one's value (OMPromises' `chain:initial:`; the same as
/// `initial.then(h1).then(h2)...`). The first failure skips the rest.
/// Progress gives each handler's promise an equal share: after `k` of `n`
/// handlers, at fraction `p` of the next, `(k + p) / n`. Cancelling the
/// result asks the running step to cancel.
///
/// ```swift
/// let stages: [@Sendable (Image) throws -> Promise<Image>] = [resize, sharpen, compress]
/// chain(stages, initial: photo).done { save($0) }
/// ```
public func chain<Value: Sendable>(
    _ handlers: [@Sendable (Value) throws -> Promise<Value>], initial: Value
) -> Promise<Value> {
    chained(handlers, from: Promise(value: initial), steps: StepProgress(count: handlers.count), first: 0)
}

/// As `chain(_:initial:)` from a promise, which counts as the first step
/// for progress (of `n + 1`), as in OMPromises.
///
/// ```swift
/// chain([decode, validate], initial: download(url)).done { use($0) }
/// ```
public func chain<Value: Sendable>(
    _ handlers: [@Sendable (Value) throws -> Promise<Value>], initial: Promise<Value>
) -> Promise<Value> {
    let steps = StepProgress<Value>(count: handlers.count + 1)
    steps.track(initial, as: 0)
    return chained(handlers, from: initial, steps: steps, first: 1)
}

/// `initial.then(handlers[0]).then(handlers[1])...`, each handler's
/// promise tracked as step `first + index`.
private func chained<Value: Sendable>(
    _ handlers: [@Sendable (Value) throws -> Promise<Value>], from initial: Promise<Value>,
    steps: StepProgress<Value>, first: Int
) -> Promise<Value> {
    guard !handlers.isEmpty else { return initial }
    var current = initial
    for index in 0..<handlers.count {
        let handler = handlers[index]
        current = current.then { value in
            let next = try handler(value)
            steps.track(next, as: first + index)
            return next
        }
    }
    return steps.finish(following: current)
}

/// A result whose progress is made of steps of equal share (OMPromises'
/// combination): step `index` of `count` at fraction `p` reports
/// `(index + p) / count`.
final class StepProgress<Value: Sendable>: Sendable {
    let result = Promise<Value>(upstream: nil)
    private let count: Double

    init(count: Int) {
        self.count = Double(max(count, 1))
    }

    /// Reports `step`'s progress as the share of step `index`.
    func track(_ step: AnyPromise, as index: Int) {
        step.addProgressListener { [result, count] fraction in
            result.reportProgress((Double(index) + fraction) / count)
        }
    }

    /// The result, settling as `last` does; cancelling it asks `last`.
    func finish(following last: Promise<Value>) -> Promise<Value> {
        result.follow(last) { last.cancelAsChild() }
        return result
    }
}
