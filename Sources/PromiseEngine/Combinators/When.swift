import Synchronization

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
    PackRun(repeat each promises, cancelOthersOnFailure: cancelOthersOnFailure).start()
}

/// `when(fulfilled:)` of two promises of different types: the same as
/// the parameter-pack form, spelled out so that PromiseKit's idiom (a
/// closure of 2 parameters whose body calls a function taking `Any...`,
/// such as `print`) type-checks directly and inside `firstly { }`.
///
/// ```swift
/// when(fulfilled: login(), fetchName(id)).done { user, name in print(user.id, name) }
/// ```
public func when<A: Sendable, B: Sendable>(
    fulfilled a: Promise<A>, _ b: Promise<B>,
    cancelOthersOnFailure: Bool = false
) -> Promise<(A, B)> {
    PackRun(a, b, cancelOthersOnFailure: cancelOthersOnFailure).start()
}

/// `when(fulfilled:)` of three promises of different types: the same as
/// the parameter-pack form, spelled out so that PromiseKit's idiom (a
/// closure of 3 parameters whose body calls a function taking `Any...`,
/// such as `print`) type-checks directly and inside `firstly { }`.
///
/// ```swift
/// when(fulfilled: login(), fetchName(id), fetchAvatar(id)).done { user, name, avatar in
///     print(user.id, name, avatar.count)
/// }
/// ```
public func when<A: Sendable, B: Sendable, C: Sendable>(
    fulfilled a: Promise<A>, _ b: Promise<B>, _ c: Promise<C>,
    cancelOthersOnFailure: Bool = false
) -> Promise<(A, B, C)> {
    PackRun(a, b, c, cancelOthersOnFailure: cancelOthersOnFailure).start()
}

/// `when(fulfilled:)` of four promises of different types: the same as
/// the parameter-pack form, spelled out so that PromiseKit's idiom (a
/// closure of 4 parameters whose body calls a function taking `Any...`,
/// such as `print`) type-checks directly and inside `firstly { }`.
///
/// ```swift
/// when(fulfilled: user, orders, settings, theme).done { user, orders, settings, theme in
///     show(user, orders, settings, theme)
/// }
/// ```
public func when<A: Sendable, B: Sendable, C: Sendable, D: Sendable>(
    fulfilled a: Promise<A>, _ b: Promise<B>, _ c: Promise<C>, _ d: Promise<D>,
    cancelOthersOnFailure: Bool = false
) -> Promise<(A, B, C, D)> {
    PackRun(a, b, c, d, cancelOthersOnFailure: cancelOthersOnFailure).start()
}

/// `when(fulfilled:)` of five promises of different types: the same as
/// the parameter-pack form, spelled out so that PromiseKit's idiom (a
/// closure of 5 parameters whose body calls a function taking `Any...`,
/// such as `print`) type-checks directly and inside `firstly { }`.
///
/// ```swift
/// when(fulfilled: a, b, c, d, e).done { a, b, c, d, e in print(a, b, c, d, e) }
/// ```
public func when<A: Sendable, B: Sendable, C: Sendable, D: Sendable, E: Sendable>(
    fulfilled a: Promise<A>, _ b: Promise<B>, _ c: Promise<C>, _ d: Promise<D>, _ e: Promise<E>,
    cancelOthersOnFailure: Bool = false
) -> Promise<(A, B, C, D, E)> {
    PackRun(a, b, c, d, e, cancelOthersOnFailure: cancelOthersOnFailure).start()
}

/// The pack form of `when(fulfilled:)`: observes each input directly (no
/// intermediate promises), counts the fulfilled ones down, and reads the
/// values from the inputs once the count reaches zero.
final class PackRun<each Value: Sendable>: CombinatorHooks, @unchecked Sendable {
    // @unchecked: every stored property is immutable and Sendable, or atomic.
    let result = Promise<(repeat each Value)>(upstream: nil)
    let promises: (repeat Promise<each Value>)
    let remaining: Atomic<Int>
    let cancelOthersOnFailure: Bool

    init(_ promises: repeat Promise<each Value>, cancelOthersOnFailure: Bool) {
        self.promises = (repeat each promises)
        var count = 0
        for _ in repeat each promises { count += 1 }
        remaining = Atomic(count)
        self.cancelOthersOnFailure = cancelOthersOnFailure
        super.init()
    }

    func start() -> Promise<(repeat each Value)> {
        if remaining.load(ordering: .relaxed) == 0 {
            result.settleNow(.fulfilled((repeat (each promises).outcome!.value!)))
            return result
        }
        result.setHooks(self)
        var drain = Drain()
        for promise in repeat each promises { observe(promise, &drain) }
        drain.run()
        return result
    }

    private func observe<Input>(_ promise: Promise<Input>, _ drain: inout Drain) {
        promise.observe(
            { [self] pointer, drain in
                self.receive(Outcome<Input>.load(from: pointer), &drain)
            }, asChild: true, &drain)
    }

    private func receive<Input>(_ outcome: Outcome<Input>, _ drain: inout Drain) {
        switch outcome {
        case .fulfilled:
            if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
                result.settle(.fulfilled((repeat (each promises).outcome!.value!)), &drain)
            }
        case .rejected(let error):
            if result.settle(.rejected(error), &drain), cancelOthersOnFailure { cancelInputs() }
        case .cancelled:
            if result.settle(.cancelled, &drain), cancelOthersOnFailure { cancelInputs() }
        }
    }

    override func cancelInputs() {
        for promise in repeat each promises { promise.cancelAsChild() }
    }

    override func startProgress() {
        var inputs: [AnyPromise] = []
        for promise in repeat each promises { inputs.append(promise) }
        result.reportMeanProgress(of: inputs)
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
