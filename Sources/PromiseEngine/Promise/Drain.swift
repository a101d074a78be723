/// The work list that keeps long chains off the stack.
///
/// Settling a promise never calls the observers of the promises it settles in
/// turn: it queues them here, and the outermost `run()` notifies them one
/// after the other in a loop (as NIO's `CallbackList._run` does). A chain of
/// a million synchronous links therefore uses a constant amount of stack.
@usableFromInline
struct Drain {
    /// The oldest queued promise when the queue has just one (no allocation).
    private var next: AnyPromise?
    private var queue: [AnyPromise] = []
    private var head = 0

    @usableFromInline
    init() {}

    @usableFromInline
    mutating func push(_ promise: AnyPromise) {
        if next == nil && head == queue.count {
            next = promise
        } else {
            queue.append(promise)
        }
    }

    private mutating func pop() -> AnyPromise? {
        if let promise = next {
            next = nil
            return promise
        }
        guard head < queue.count else { return nil }
        let promise = queue[head]
        head += 1
        if head == queue.count {
            queue.removeAll(keepingCapacity: true)
            head = 0
        }
        return promise
    }

    /// Notifies queued promises' observers until nothing is left.
    @usableFromInline
    mutating func run() {
        while let promise = pop() {
            promise.fire(&self)
        }
    }
}
