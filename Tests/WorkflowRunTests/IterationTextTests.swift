import Testing

@testable import WorkflowRun

/// An iteration's `[i]` and its steps' ids, written at once: the same text
/// as `+` makes, for any index and any base (empty, long, not ASCII).
@Suite("Iteration suffixes and step ids")
struct IterationTextTests {
    @Test(arguments: ["", "[2]", "[12][3]", "über[4]", String(repeating: "[123456]", count: 8)])
    func suffixes(_ base: String) {
        for index in [0, 1, 9, 10, 99, 100, 12_345, 1_000_000_007, Int.max, -1, Int.min] {
            #expect(IterationText.suffix(base, index: index) == base + "[" + String(index) + "]")
        }
    }

    @Test func ids() {
        #expect(IterationText.joined("get", "[17]") == "get[17]")
        #expect(IterationText.joined("get", "") == "get")
        #expect(IterationText.joined("", "[1]") == "[1]")
        #expect(IterationText.joined("grüße", "[3][4]") == "grüße[3][4]")
        let long = String(repeating: "step", count: 20)
        #expect(IterationText.joined(long, "[0]") == long + "[0]")
    }
}
