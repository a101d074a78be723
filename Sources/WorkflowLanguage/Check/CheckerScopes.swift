import PromiseEngine
import WorkflowModel

// The bookkeeping of the checker: which labels exist where, which steps are
// surely finished at a point, which variables are in scope.

/// A labeled node as the checker knows it.
struct LabelInfo {
    /// The same for every node with this label (an index in the checker's
    /// tables).
    var id: Int32
    var name: String
    var range: SourceRange
    /// `sh`, `http`, `parallel`, ...
    var kind: String
    /// The names of the step's captures.
    var captures: [String]
    /// The foreach scope the label lives in (0: the workflow).
    var scope: Int
    /// The file operation, for file steps.
    var fileOperation: String?

    /// The fields `{{label.F}}` may name (capture names included); empty
    /// for groups and for steps without values.
    var fields: [String] {
        LanguageTable.fields(of: kind, fileOperation: fileOperation).map(\.name) + captures
    }
}

/// A set of names with an undo log: push names, then pop back to a height.
/// Used for the steps surely finished at a point and for variables in scope.
struct ScopedNames {
    private(set) var entries: [String] = []
    private var counts: [String: Int] = [:]

    var height: Int { entries.count }

    func contains(_ name: String) -> Bool { counts[name] != nil }

    mutating func push(_ name: String) {
        entries.append(name)
        counts[name, default: 0] += 1
    }

    mutating func push(contentsOf names: some Sequence<String>) {
        for name in names { push(name) }
    }

    /// Removes the names pushed after `height`, returning them.
    @discardableResult
    mutating func pop(to height: Int) -> [String] {
        guard height < entries.count else { return [] }
        let removed = Array(entries[height...])
        for name in removed {
            if let count = counts[name], count > 1 {
                counts[name] = count - 1
            } else {
                counts[name] = nil
            }
        }
        entries.removeSubrange(height...)
        return removed
    }

    func names(since height: Int) -> ArraySlice<String> {
        entries[min(height, entries.count)...]
    }
}

/// The labels surely finished at a point, by label id, with an undo log:
/// push labels, then pop back to a height. No hashing: ids index arrays.
struct FinishedLabels {
    private(set) var entries: [Int32] = []
    private var counts: [UInt32] = []

    var height: Int { entries.count }

    /// Makes room for ids below `count`.
    mutating func reserve(ids count: Int) {
        if counts.count < count { counts += [UInt32](repeating: 0, count: count - counts.count) }
    }

    func contains(_ id: Int32) -> Bool { counts[Int(id)] > 0 }

    mutating func push(_ id: Int32) {
        entries.append(id)
        counts[Int(id)] += 1
    }

    mutating func push(contentsOf ids: some Sequence<Int32>) {
        for id in ids { push(id) }
    }

    /// Removes the labels pushed after `height`, returning them.
    @discardableResult
    mutating func pop(to height: Int) -> [Int32] {
        guard height < entries.count else { return [] }
        let removed = Array(entries[height...])
        for id in removed { counts[Int(id)] -= 1 }
        entries.removeSubrange(height...)
        return removed
    }

    func ids(since height: Int) -> ArraySlice<Int32> {
        entries[min(height, entries.count)...]
    }
}

/// The foreach scopes: each foreach body is a scope for labels, inside its
/// parent's.
struct LabelScopes {
    /// `parents[i]`: the scope enclosing scope `i` (scope 0 has none).
    private(set) var parents: [Int] = [-1]

    mutating func make(inside parent: Int) -> Int {
        parents.append(parent)
        return parents.count - 1
    }

    /// True when `outer` is `inner` or encloses it.
    func encloses(_ outer: Int, _ inner: Int) -> Bool {
        var scope = inner
        while scope >= 0 {
            if scope == outer { return true }
            scope = parents[scope]
        }
        return false
    }
}

extension Step {
    var captureNames: [String] {
        switch self {
        case .shell(_, let process), .exec(_, let process): return process.captures.map(\.name)
        case .http(let request): return request.captures.map(\.name)
        default: return []
        }
    }
}

extension Condition {
    var templates: [Template] {
        switch self {
        case .equal(let left, let right), .notEqual(let left, let right): return [left, right]
        case .exists(let path): return [path]
        case .not(let inner): return inner.templates
        }
    }
}

extension ListSource {
    var templates: [Template] {
        switch self {
        case .items(let items): return items
        case .lines(let template), .split(let template), .glob(let template): return [template]
        case .range(let low, let high): return [low, high]
        }
    }
}
