import PromiseEngine
import WorkflowModel

/// Structured cancellation for the executor: every running node has a
/// scope, nested like the workflow. Cancelling a scope cancels everything
/// inside it (its handlers stop the real work: a step's promise, a wait for
/// a slot, a sleep). Ensure blocks run in detached scopes, so that the
/// cancellation that made them run does not stop them.
package final class CancelScope: Sendable {
    private struct State {
        var cancelled = false
        var nextID = 0
        /// The handlers registered, in the order of their ids; a removed
        /// one leaves nil until enough have gone to close the gaps (a scope
        /// mostly holds one or two, or a group's running lanes: no hashing).
        var handlers: [Registration] = []
        var removed = 0
        /// This scope's handler in its parent, until `finish`.
        var registrationInParent: Int?

        mutating func remove(_ id: Int) {
            // The latest registrations mostly go first; a long list is
            // searched by halves (ids only grow).
            var index = -1
            if handlers.count <= 16 {
                var at = handlers.count - 1
                while at >= 0 {
                    if handlers[at].id == id {
                        index = at
                        break
                    }
                    at -= 1
                }
            } else {
                var low = 0
                var high = handlers.count
                while low < high {
                    let middle = (low + high) / 2
                    if handlers[middle].id < id { low = middle + 1 } else { high = middle }
                }
                if low < handlers.count, handlers[low].id == id { index = low }
            }
            guard index >= 0, handlers[index].run != nil else { return }
            handlers[index].run = nil
            removed += 1
            if removed == handlers.count {
                handlers.removeAll(keepingCapacity: true)
                removed = 0
            } else if removed >= 8, removed * 2 > handlers.count {
                handlers.removeAll { $0.run == nil }
                removed = 0
            }
        }
    }

    /// A handler and its id (a struct, so that the closure is stored as
    /// it is called: no conversion when the list is searched).
    private struct Registration {
        var id: Int
        var run: (@Sendable () -> Void)?
    }

    private let state = Lock(State())
    private let parent: CancelScope?

    /// A root scope, or one detached from any parent.
    package init() {
        parent = nil
    }

    /// A scope inside `parent`: cancelled when the parent is (at once if it
    /// already is). Call `finish()` when the work is done, so the parent
    /// lets go of it (until then the parent's handler holds it).
    package init(parent: CancelScope) {
        self.parent = parent
        let registration = parent.onCancel { [self] in cancel() }
        state.withLock { $0.registrationInParent = registration }
    }

    package var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Cancels the scope and everything registered in it, once.
    package func cancel() {
        let handlers: [Registration] = state.withLock { state in
            guard !state.cancelled else { return [] }
            state.cancelled = true
            defer {
                state.handlers = []
                state.removed = 0
            }
            return state.handlers
        }
        for handler in handlers { handler.run?() }
    }

    /// Runs `handler` when the scope is cancelled; at once (returning nil)
    /// if it already is. The returned id removes it again.
    @discardableResult
    package func onCancel(_ handler: @escaping @Sendable () -> Void) -> Int? {
        let id: Int? = state.withLock { state in
            guard !state.cancelled else { return nil }
            let id = state.nextID
            state.nextID += 1
            state.handlers.append(Registration(id: id, run: handler))
            return id
        }
        if id == nil { handler() }
        return id
    }

    package func removeHandler(_ id: Int?) {
        guard let id else { return }
        state.withLock { $0.remove(id) }
    }

    /// The work in this scope is over: the parent forgets it.
    package func finish() {
        let registration: Int? = state.withLock { state in
            state.handlers = []
            state.removed = 0
            defer { state.registrationInParent = nil }
            return state.registrationInParent
        }
        parent?.removeHandler(registration)
    }
}
