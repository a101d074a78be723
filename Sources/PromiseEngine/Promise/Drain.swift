/// The work list that keeps long chains off the stack.
///
/// Settling a promise never calls the observers of the promises it settles in
/// turn: it queues them here, and the outermost `run()` notifies them one
/// after the other in a loop (as NIO's `CallbackList._run` does). A chain of
/// a million synchronous links therefore uses a constant amount of stack.
@usableFromInline
struct Drain {
    /// Notifies the observers of a settled promise. Made in the promise's
    /// own (specialized) code, so notifying never goes through unspecialized
    /// generic code.
    @usableFromInline
    typealias Fire = (AnyPromise, inout Drain) -> Void

    @usableFromInline
    struct Item {
        @usableFromInline let promise: AnyPromise
        @usableFromInline let fire: Fire

        @inlinable
        init(promise: AnyPromise, fire: @escaping Fire) {
            self.promise = promise
            self.fire = fire
        }
    }

    /// The oldest queued item when the queue has just one (no allocation).
    @usableFromInline var next: Item?
    @usableFromInline var queue: [Item] = []
    @usableFromInline var head = 0

    @inlinable
    init() {}

    @inlinable
    mutating func push(_ promise: AnyPromise, _ fire: @escaping Fire) {
        if next == nil && head == queue.count {
            next = Item(promise: promise, fire: fire)
        } else {
            queue.append(Item(promise: promise, fire: fire))
        }
    }

    @inlinable
    mutating func pop() -> Item? {
        if let item = next.take() {
            return item
        }
        guard head < queue.count else { return nil }
        let item = queue[head]
        head += 1
        if head == queue.count {
            queue.removeAll(keepingCapacity: true)
            head = 0
        }
        return item
    }

    /// Notifies queued promises' observers until nothing is left.
    /// Work deferred with `Propagation.defer` meanwhile runs after the
    /// outermost loop on this thread.
    @inlinable
    mutating func run() {
        guard let first = pop() else { return }
        Propagation.enter()
        first.fire(first.promise, &self)
        while let item = pop() {
            item.fire(item.promise, &self)
        }
        Propagation.leave()
    }
}
