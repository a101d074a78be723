import Synchronization

/// Fixed slots that several threads fill, one slot each, plus a countdown
/// that tells the last one it was last. No lock: each slot has exactly one
/// writer, and the acquiring-and-releasing countdown orders every write
/// before the read of the thread that reaches zero.
final class SlotBuffer<Element>: @unchecked Sendable {
    // @unchecked: slots are written by distinct threads at distinct indices
    // and read only after `remaining` reached zero (see `fill`).
    private let slots: UnsafeMutableBufferPointer<Element?>
    private let remaining: Atomic<Int>

    init(count: Int) {
        slots = .allocate(capacity: count)
        slots.initialize(repeating: nil)
        remaining = Atomic(count)
    }

    deinit {
        slots.deinitialize()
        slots.deallocate()
    }

    var count: Int { slots.count }

    /// Stores `element` at `index` (once per index). Returns true for the
    /// caller that filled the last slot: it may then read them all.
    func fill(_ index: Int, with element: Element) -> Bool {
        slots[index] = element
        return remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0
    }

    /// Every slot, in order. Only after `fill` returned true. (An index
    /// loop, not `map`: this code runs unspecialized, where `map`'s
    /// generic element accessor allocates for every element.)
    func all() -> [Element] {
        var elements: [Element] = []
        elements.reserveCapacity(slots.count)
        for index in 0..<slots.count { elements.append(slots[index]!) }
        return elements
    }
}

extension Promise {
    /// Wires a combinator's result to its inputs: `receiver` hears each
    /// input's outcome with its index (each input counts `self` among its
    /// children); cancelling `self` asks every input still held to cancel;
    /// with `combinesProgress`, `self` reports their mean progress.
    final func observeInputs<Input>(
        _ promises: [Promise<Input>], held inputs: CombinatorInputs<Input>, combinesProgress: Bool = true,
        _ receiver: @escaping @Sendable (Int, Outcome<Input>, inout Drain) -> Void
    ) {
        addCancelHandler { inputs.cancel() }
        if combinesProgress { combineProgress(of: promises) }
        var drain = Drain()
        // An index loop: `enumerated()` allocates per element in
        // unspecialized code.
        for index in 0..<promises.count {
            promises[index].observe(
                { pointer, drain in
                    receiver(index, Outcome<Input>.load(from: pointer), &drain)
                }, asChild: true, &drain)
        }
        drain.run()
    }

    /// Makes `self` report the mean progress of `inputs` once somebody listens.
    final func combineProgress<Input: AnyPromise>(of inputs: [Input]) {
        guard !inputs.isEmpty else { return }
        setProgressSource { [self] in self.reportMeanProgress(of: inputs) }
    }

    /// Listens to the progress of `inputs` and reports their mean.
    final func reportMeanProgress<Input: AnyPromise>(of inputs: [Input]) {
        let fractions = Lock([Double](repeating: 0, count: inputs.count))
        for index in 0..<inputs.count {
            inputs[index].addProgressListener { [self] fraction in
                let mean: Double = fractions.withLock { fractions in
                    fractions[index] = fraction
                    return fractions.reduce(0, +) / Double(fractions.count)
                }
                self.reportProgress(mean)
            }
        }
    }
}

/// A combinator's inputs, held only until the combinator settles: then it
/// asks the ones still wanted to cancel, or simply lets go of them, so an
/// input that never settles does not keep the others alive.
final class CombinatorInputs<Value: Sendable>: Sendable {
    private let promises: Lock<[Promise<Value>]>

    init(_ promises: [Promise<Value>]) {
        self.promises = Lock(promises)
    }

    /// Asks every input but `except` to cancel (each as one of its
    /// children), and lets go of them all.
    func cancel(except: Int? = nil) {
        let promises = self.promises.withLock { promises in
            defer { promises = [] }
            return promises
        }
        for index in 0..<promises.count where index != except {
            promises[index].cancelAsChild()
        }
    }

    /// Lets go of the inputs.
    func release() {
        promises.withLock { $0 = [] }
    }
}
