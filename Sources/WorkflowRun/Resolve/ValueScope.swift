import PromiseEngine
package import WorkflowModel

/// The values visible at a point of the run: variables (`var`, `secret`,
/// foreach items), block-level `env` settings, results of finished steps,
/// and inside a catch the error it handles. Scopes nest like the blocks.
///
/// Step results live in the nearest *label scope* (the workflow, or one
/// foreach iteration), since labels are unique there, whatever block the
/// step sits in.
package final class ValueScope: Sendable {
    private struct State {
        var variables: [String: String] = [:]
        var secretNames: Set<String> = []
        var environment: [(name: String, value: String)] = []
        /// The first label stored here and its result, the others in
        /// `results`: an iteration of a load test stores one result per
        /// request, and a table of one was an allocation and a hash.
        var first: (label: String, result: StepResult)?
        var results: [String: StepResult] = [:]

        mutating func store(_ result: StepResult, label: String) {
            if first == nil || first?.label == label {
                first = (label, result)
            } else {
                results[label] = result
            }
        }

        func result(_ label: String) -> StepResult? {
            if let first, first.label == label { return first.result }
            return results.isEmpty ? nil : results[label]
        }
    }

    package let parent: ValueScope?
    /// Whether step results are stored here (the root, a foreach iteration).
    package let isLabelScope: Bool
    /// The error a catch handles, for `{{error.*}}` and `rethrow`.
    package let caught: RunError?
    /// A foreach iteration's item: its variable, set once, looked up
    /// after what `declare` set here (no table made per iteration).
    private let item: (name: String, value: String)?
    private let state = Lock(State())

    package init(parent: ValueScope?, isLabelScope: Bool = false, caught: RunError? = nil) {
        self.parent = parent
        self.isLabelScope = isLabelScope || parent == nil
        self.caught = caught
        item = nil
    }

    /// A foreach iteration's scope (a label scope) with its item as
    /// variable `item.name`.
    package init(parent: ValueScope, item: (name: String, value: String)) {
        self.parent = parent
        isLabelScope = true
        caught = nil
        self.item = item
    }

    /// The items of the foreach iterations this scope is in, outermost
    /// first (what a step with `sources` inside them is stored by).
    package var enclosingItems: [String] {
        var items: [String] = []
        var scope: ValueScope? = self
        while let current = scope {
            if let item = current.item { items.append(item.value) }
            scope = current.parent
        }
        return items.reversed()
    }

    package func declare(_ name: String, value: String, secret: Bool = false) {
        state.withLock { state in
            state.variables[name] = value
            if secret {
                state.secretNames.insert(name)
            } else if !state.secretNames.isEmpty {
                state.secretNames.remove(name)
            }
        }
    }

    /// A variable's value, and whether it is a secret.
    package func variable(_ name: String) -> (value: String, isSecret: Bool)? {
        var scope: ValueScope? = self
        while let current = scope {
            let found: (String, Bool)? = current.state.withLock { state in
                state.variables[name].map { ($0, state.secretNames.contains(name)) }
            }
            if let found { return found }
            if let item = current.item, item.name == name { return (item.value, false) }
            scope = current.parent
        }
        return nil
    }

    package func setEnvironment(_ name: String, _ value: String) {
        state.withLock { $0.environment.append((name, value)) }
    }

    /// Block-level `env` settings from the outermost block to this one
    /// (inner ones win).
    package var environment: [(name: String, value: String)] {
        // Most blocks set none: nothing is allocated for them.
        var settings: [[(name: String, value: String)]] = []
        var scope: ValueScope? = self
        while let current = scope {
            let own = current.state.withLock { $0.environment }
            if !own.isEmpty { settings.append(own) }
            scope = current.parent
        }
        return settings.count <= 1 ? settings.first ?? [] : settings.reversed().flatMap { $0 }
    }

    /// Stores a finished step's result where its label is visible.
    package func store(_ result: StepResult, label: String) {
        var scope = self
        while !scope.isLabelScope, let parent = scope.parent { scope = parent }
        scope.state.withLock { $0.store(result, label: label) }
    }

    package func result(_ label: String) -> StepResult? {
        var scope: ValueScope? = self
        while let current = scope {
            if let result = current.state.withLock({ $0.result(label) }) { return result }
            scope = current.parent
        }
        return nil
    }

    /// The error the nearest enclosing catch handles.
    package var caughtError: RunError? {
        var scope: ValueScope? = self
        while let current = scope {
            if let caught = current.caught { return caught }
            scope = current.parent
        }
        return nil
    }
}
