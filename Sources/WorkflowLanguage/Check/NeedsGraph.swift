import PromiseEngine
import WorkflowModel

/// Graph algorithms on the `needs` edges of a parallel group: `needs[i]` are
/// the children child `i` waits for. All iterative.
enum NeedsGraph {
    /// An order in which every child comes after those it needs (Kahn);
    /// children in cycles come last, in source order.
    static func order(_ needs: [[Int]]) -> [Int] {
        var waiting = needs.map(\.count)
        var dependents = Array(repeating: [Int](), count: needs.count)
        for (child, needed) in needs.enumerated() {
            for sibling in needed { dependents[sibling].append(child) }
        }
        var ready = needs.indices.filter { waiting[$0] == 0 }.reversed() as [Int]
        var order: [Int] = []
        var placed = Array(repeating: false, count: needs.count)
        while let next = ready.popLast() {
            order.append(next)
            placed[next] = true
            for dependent in dependents[next].reversed() {
                waiting[dependent] -= 1
                if waiting[dependent] == 0 { ready.append(dependent) }
            }
        }
        order += needs.indices.filter { !placed[$0] }
        return order
    }

    /// Each cycle once, as the children in it, in the order of the edges,
    /// starting with the lowest index.
    static func cycles(_ needs: [[Int]]) -> [[Int]] {
        // 0: unvisited, 1: on the current path, 2: done.
        var state = Array(repeating: 0, count: needs.count)
        var cycles: [[Int]] = []
        for root in needs.indices where state[root] == 0 {
            var path: [Int] = []
            var stack: [(node: Int, next: Int)] = [(root, 0)]
            state[root] = 1
            path.append(root)
            while let top = stack.last {
                if top.next < needs[top.node].count {
                    stack[stack.count - 1].next += 1
                    let sibling = needs[top.node][top.next]
                    if state[sibling] == 0 {
                        state[sibling] = 1
                        path.append(sibling)
                        stack.append((sibling, 0))
                    } else if state[sibling] == 1, let start = path.firstIndex(of: sibling) {
                        var cycle = Array(path[start...])
                        let lowest = cycle.indices.min { cycle[$0] < cycle[$1] }!
                        cycle = Array(cycle[lowest...] + cycle[..<lowest])
                        if !cycles.contains(cycle) { cycles.append(cycle) }
                    }
                } else {
                    state[top.node] = 2
                    path.removeLast()
                    stack.removeLast()
                }
            }
        }
        return cycles
    }
}
