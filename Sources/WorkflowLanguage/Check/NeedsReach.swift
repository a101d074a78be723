import PromiseEngine
import WorkflowModel

/// Which labels the siblings a parallel group's child waits for (through
/// `needs`, directly or not) surely finished, asked one label at a time.
///
/// The checker used to push, before each child, every label of everything
/// it waits for, and pop them after: a chain of `needs` cost its length
/// squared. Here a child's waits are walked only as far as a question
/// needs, and at most once per child (the walk goes on where it stopped).
struct NeedsReach {
    private let needs: [[Int]]
    /// The sibling whose check left each label finished.
    private var providers: [Int32: Int] = [:]
    /// `reached[i] == stamp`: the current child waits for sibling `i`.
    private var reached: [Int]
    private var stamp = 0
    /// Siblings reached but not yet walked from.
    private var pending: [Int] = []
    /// Siblings walked from, over the whole group (the work done).
    private(set) var visits = 0

    init(_ needs: [[Int]]) {
        self.needs = needs
        reached = Array(repeating: 0, count: needs.count)
    }

    /// The child about to be checked.
    mutating func begin(_ child: Int) {
        stamp += 1
        pending.removeAll(keepingCapacity: true)
        for sibling in needs[child] where reached[sibling] != stamp {
            reached[sibling] = stamp
            pending.append(sibling)
        }
    }

    /// `sibling`'s check left `label` finished.
    mutating func record(_ label: Int32, finishedBy sibling: Int) {
        if providers[label] == nil { providers[label] = sibling }
    }

    /// Whether a sibling the current child waits for finished `label`.
    mutating func waitsFor(_ label: Int32) -> Bool {
        guard let provider = providers[label] else { return false }
        while reached[provider] != stamp, let next = pending.popLast() {
            visits += 1
            for sibling in needs[next] where reached[sibling] != stamp {
                reached[sibling] = stamp
                pending.append(sibling)
            }
        }
        return reached[provider] == stamp
    }
}
