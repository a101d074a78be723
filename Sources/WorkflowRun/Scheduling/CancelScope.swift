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
        var handlers: [Int: @Sendable () -> Void] = [:]
    }

    private let state = Lock(State())
    private let parent: CancelScope?
    private let registrationInParent: Int?

    /// A root scope, or one detached from any parent.
    package init() {
        parent = nil
        registrationInParent = nil
    }

    /// A scope inside `parent`: cancelled when the parent is (at once if it
    /// already is). Call `finish()` when the work is done, so the parent
    /// lets go of it.
    package init(parent: CancelScope) {
        self.parent = parent
        // Registered after init completes: capture through a box.
        let box = ScopeBox()
        registrationInParent = parent.onCancel { box.scope?.cancel() }
        box.scope = self
        if parent.isCancelled { cancel() }
    }

    package var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Cancels the scope and everything registered in it, once.
    package func cancel() {
        let handlers: [@Sendable () -> Void] = state.withLock { state in
            guard !state.cancelled else { return [] }
            state.cancelled = true
            let handlers = state.handlers.sorted { $0.key < $1.key }.map(\.value)
            state.handlers = [:]
            return handlers
        }
        for handler in handlers { handler() }
    }

    /// Runs `handler` when the scope is cancelled; at once (returning nil)
    /// if it already is. The returned id removes it again.
    @discardableResult
    package func onCancel(_ handler: @escaping @Sendable () -> Void) -> Int? {
        let id: Int? = state.withLock { state in
            guard !state.cancelled else { return nil }
            let id = state.nextID
            state.nextID += 1
            state.handlers[id] = handler
            return id
        }
        if id == nil { handler() }
        return id
    }

    package func removeHandler(_ id: Int?) {
        guard let id else { return }
        _ = state.withLock { $0.handlers.removeValue(forKey: id) }
    }

    /// The work in this scope is over: the parent forgets it.
    package func finish() {
        parent?.removeHandler(registrationInParent)
        state.withLock { $0.handlers = [:] }
    }
}

/// How a scope's registration in its parent refers to the scope: weakly,
/// so a parent never keeps a finished child alive.
private final class ScopeBox: @unchecked Sendable {
    // @unchecked: `scope` is assigned once, in CancelScope.init, right after
    // the registration. A parent cancelled before that finds nil here, and
    // the init then cancels the new scope itself.
    weak var scope: CancelScope?
}
