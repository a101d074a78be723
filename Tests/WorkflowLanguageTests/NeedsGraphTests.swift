import Testing
@testable import PromiseEngine
import PromiseTestSupport
@testable import WorkflowModel
@testable import WorkflowLanguage
import WorkflowTestSupport

@Suite("Needs graph")
struct NeedsGraphTests {
    @Test func orderPutsNeedsFirst() {
        // 0 needs 2, 2 needs 1.
        #expect(NeedsGraph.order([[2], [], [1]]) == [1, 2, 0])
    }

    @Test func closureIsTransitive() {
        #expect(Set(NeedsGraph.closure(of: 0, [[1], [2], [], []])) == [1, 2])
    }

    @Test func cyclesAreFoundOnceFromTheirLowestMember() {
        #expect(NeedsGraph.cycles([[1], [2], [0], []]) == [[0, 1, 2]])
        #expect(NeedsGraph.cycles([[1], [0], [3], [2]]) == [[0, 1], [2, 3]])
        #expect(NeedsGraph.cycles([[1], [], [1]]).isEmpty)
    }

    @Test func longChainsDoNotRecurse() {
        let count = 100_000
        let needs = (0..<count).map { $0 == 0 ? [] : [$0 - 1] }
        #expect(NeedsGraph.cycles(needs).isEmpty)
        #expect(NeedsGraph.order(needs).first == 0)
    }
}
