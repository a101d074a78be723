import Synchronization

/// Starts `body` for each element of `elements`, with at most `limit`
/// promises in flight, and gives every value in element order.
///
/// Elements are taken from the sequence only as slots free up, so a huge or
/// lazy sequence is never held in memory whole. The first failure stops new
/// starts and rejects the result with that error once nothing is in flight;
/// with `cancelOthersOnFailure` it also asks the ones in flight to cancel
/// (the default is false, as for the array form: they run to their end).
/// Cancelling the result cancels what is in flight. A `limit` below 1
/// rejects with `PromiseError.badInput` and starts nothing.
///
/// ```swift
/// when(fulfilled: urls, limit: 64) { url in fetch(url) }.done { pages in print(pages.count) }
/// ```
public func when<Elements: Sequence, Value: Sendable>(
    fulfilled elements: sending Elements,
    limit: Int,
    cancelOthersOnFailure: Bool = false,
    _ body: @escaping @Sendable (Elements.Element) throws -> Promise<Value>
) -> Promise<[Value]> where Elements.Element: Sendable {
    if let refused = BoundedRun<Elements.Element, Value>.refusal(limit: limit) { return Promise(error: refused) }
    let run = BoundedRun(
        elements.makeIterator(), limit: limit, stopOnFailure: true,
        cancelInFlightOnFailure: cancelOthersOnFailure, body: body)
    return run.result.map { outcomes in
        var values: [Value] = []
        values.reserveCapacity(outcomes.count)
        for index in 0..<outcomes.count { values.append(outcomes[index].value!) }
        return values
    }
}

/// As `when(fulfilled:limit:_:)`, but every element runs whatever the others
/// do, and the result is every outcome in element order. Never rejects, but
/// for a `limit` below 1 (`PromiseError.badInput`, nothing started).
///
/// ```swift
/// when(resolved: urls, limit: 8) { url in fetch(url) }.done { outcomes in
///     print(outcomes.filter { $0.error != nil }.count, "failed")
/// }
/// ```
public func when<Elements: Sequence, Value: Sendable>(
    resolved elements: sending Elements,
    limit: Int,
    _ body: @escaping @Sendable (Elements.Element) throws -> Promise<Value>
) -> Promise<[Outcome<Value>]> where Elements.Element: Sendable {
    if let refused = BoundedRun<Elements.Element, Value>.refusal(limit: limit) { return Promise(error: refused) }
    return BoundedRun(
        elements.makeIterator(), limit: limit, stopOnFailure: false,
        cancelInFlightOnFailure: false, body: body
    ).result
}

/// The state of a bounded run, mutated under the lock of `BoundedRun`.
struct BoundedRunState<Element: Sendable, Value: Sendable> {
    /// The rest of the sequence (nil once exhausted or stopped).
    var nextElement: (() -> Element?)?
    let limit: Int
    var inFlight: [Int: Promise<Value>] = [:]
    var outcomes: [Outcome<Value>?] = []
    var failure: Outcome<[Outcome<Value>]>?
    var pumping = false

    /// The next element to start, with its index, if a slot is free.
    mutating func nextStart() -> (Int, Element)? {
        guard failure == nil else {
            nextElement = nil
            return nil
        }
        guard inFlight.count < limit, let next = nextElement else { return nil }
        guard let element = next() else {
            nextElement = nil
            return nil
        }
        let index = outcomes.count
        outcomes.append(nil)
        return (index, element)
    }

    var isFinished: Bool {
        inFlight.isEmpty && nextElement == nil
    }
}

final class BoundedRun<Element: Sendable, Value: Sendable>: Sendable {
    let result = Promise<[Outcome<Value>]>(upstream: nil)
    private let state: Lock<BoundedRunState<Element, Value>>
    private let stopOnFailure: Bool
    private let cancelInFlightOnFailure: Bool
    private let body: @Sendable (Element) throws -> Promise<Value>

    /// The error for a limit no run can keep ("at most 0 in flight" would
    /// never start anything; PromiseKit rejects it too), or nil.
    static func refusal(limit: Int) -> PromiseError? {
        limit >= 1 ? nil : .badInput("a concurrency limit of \(limit): at least 1 must be allowed in flight")
    }

    init<Iterator: IteratorProtocol>(
        _ iterator: sending Iterator, limit: Int, stopOnFailure: Bool, cancelInFlightOnFailure: Bool,
        body: @escaping @Sendable (Element) throws -> Promise<Value>
    ) where Iterator.Element == Element {
        var iterator = iterator
        state = Lock(BoundedRunState(nextElement: { iterator.next() }, limit: limit))
        self.stopOnFailure = stopOnFailure
        self.cancelInFlightOnFailure = cancelInFlightOnFailure
        self.body = body
        result.addCancelHandler { [self] in self.stop(with: .cancelled) }
        pump()
    }

    /// Starts elements while slots are free. One thread pumps at a time; a
    /// completion during the pump (a promise that settled at once) finds the
    /// pump running and leaves the starting to it, so instant completions
    /// never recurse.
    private func pump() {
        let entered: Bool = state.withLock { state in
            if state.pumping { return false }
            state.pumping = true
            return true
        }
        guard entered else { return }
        while true {
            let next: (Int, Element)? = state.withLock { state in
                if let next = state.nextStart() { return next }
                state.pumping = false
                return nil
            }
            guard let (index, element) = next else { break }
            let promise: Promise<Value>
            do { promise = try body(element) } catch { promise = Promise(error: error) }
            state.withLock { $0.inFlight[index] = promise }
            promise.observeNow(asChild: true) { [self] outcome in
                self.complete(index, outcome)
            }
        }
        finishIfDone()
    }

    private func complete(_ index: Int, _ outcome: Outcome<Value>) {
        let failed: Bool = state.withLock { state in
            state.inFlight[index] = nil
            state.outcomes[index] = outcome
            guard stopOnFailure, state.failure == nil else { return false }
            switch outcome {
            case .fulfilled: return false
            case .rejected(let error): state.failure = .rejected(error)
            case .cancelled: state.failure = .cancelled
            }
            return true
        }
        if failed, cancelInFlightOnFailure { cancelInFlight() }
        pump()
        finishIfDone()
    }

    private func stop(with failure: Outcome<[Outcome<Value>]>) {
        state.withLock { state in
            if state.failure == nil { state.failure = failure }
            state.nextElement = nil
        }
        cancelInFlight()
        finishIfDone()
    }

    private func cancelInFlight() {
        let inFlight = state.withLock { Array($0.inFlight.values) }
        for promise in inFlight { promise.cancelAsChild() }
    }

    private func finishIfDone() {
        let outcome: Outcome<[Outcome<Value>]>? = state.withLock { state in
            guard state.isFinished, !state.pumping else { return nil }
            if let failure = state.failure { return failure }
            var outcomes: [Outcome<Value>] = []
            outcomes.reserveCapacity(state.outcomes.count)
            for index in 0..<state.outcomes.count { outcomes.append(state.outcomes[index]!) }
            return .fulfilled(outcomes)
        }
        if let outcome { result.settleNow(outcome) }
    }
}
