import PromiseTestSupport
import Testing
import WorkflowTestSupport

@testable import PromiseEngine
@testable import WorkflowLanguage
@testable import WorkflowModel

@Suite("Needs graph")
struct NeedsGraphTests {
    @Test func orderPutsNeedsFirst() {
        // 0 needs 2, 2 needs 1.
        #expect(NeedsGraph.order([[2], [], [1]]) == [1, 2, 0])
    }

    @Test func aChildWaitsForWhatItsNeedsFinishedDirectlyOrNot() {
        // 0 needs 1, 1 needs 2; 3 needs nothing. Labels 10...13 by child.
        var reach = NeedsReach([[1], [2], [], []])
        for child in [2, 1, 3] {
            reach.begin(child)
            reach.record(Int32(10 + child), finishedBy: child)
        }
        reach.begin(0)
        #expect(reach.waitsFor(11) && reach.waitsFor(12))
        #expect(!reach.waitsFor(13) && !reach.waitsFor(10) && !reach.waitsFor(99))
    }

    /// A parallel group of `count` steps, each needing the one before (and
    /// using its output, with `usingOutputs`).
    private func needsChain(_ count: Int, usingOutputs: Bool) -> String {
        var text = "parallel {\n  s0: sh \"true\"\n"
        for index in 1..<count {
            let command = usingOutputs ? "echo {{s\(index - 1).stdout}}" : "true"
            text += "  s\(index): sh \"\(command)\" { needs s\(index - 1) }\n"
        }
        return text + "}\n"
    }

    /// A chain of needs, each step using its predecessor's output, costs
    /// each step a look at one sibling: the work grows with the chain, not
    /// with its square.
    @Test func checkingANeedsChainIsLinear() throws {
        func visits(_ count: Int) throws -> Int {
            let source = SourceFile(path: "chain.workflow", text: needsChain(count, usingOutputs: true))
            var diagnostics = DiagnosticBag()
            let (file, broken) = Parser.parse(source, diagnostics: &diagnostics)
            #expect(!diagnostics.hasErrors)
            var checker = Checker(diagnostics: diagnostics, brokenNames: broken, bytes: source.bytes)
            checker.check(file)
            #expect(!checker.diagnostics.hasErrors)
            return checker.needsVisits
        }
        let small = try visits(5_000)
        let large = try visits(10_000)
        #expect(large <= 10_000, "\(large) siblings walked for a chain of 10,000")
        #expect(Double(large) / Double(max(1, small)) < 3, "5,000: \(small), 10,000: \(large)")
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
