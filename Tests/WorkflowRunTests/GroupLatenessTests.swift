import Testing

@testable import WorkflowRun

@Suite("GroupLateness")
struct GroupLatenessTests {
    @Test("the warning while it runs comes once, at the tenth late start past 1% of the starts, naming the limit and the lanes needed")
    func onceWhileRunning() throws {
        let lateness = GroupLateness(group: "load", lanes: .limit(2), peakRate: 100, planned: .seconds(4))
        // Two lanes busy for 50 ms each, then every start 100 ms late.
        var said: [String] = []
        for index in 0..<40 {
            if index >= 2 { lateness.ended(took: .milliseconds(50)) }
            if let warning = lateness.started(lateness: index < 2 ? .zero : .milliseconds(100)) { said.append("\(index): \(warning)") }
        }
        #expect(said.count == 1, "\(said)")
        let first = try #require(said.first)
        #expect(first.hasPrefix("11: 'load' is falling behind its schedule: 10 of its first 12 iterations started over 40ms late"), "\(first)")
        #expect(first.contains("its 'limit 2' held it back"), "\(first)")
        #expect(first.contains("raise it to at least 5 (100/s × 50ms an iteration needs about 5 at once)"), "\(first)")
        #expect(lateness.warning()?.hasPrefix("'load' fell behind its schedule: lateness p99 ") == true)
    }

    @Test("late starts that are 1% of the starts or fewer, or fewer than ten, are no warning while it runs")
    func noTrendNoWarning() {
        let lateness = GroupLateness(group: "load", lanes: .limit(50), peakRate: 1000, planned: .seconds(60))
        for index in 0..<5_000 {
            // 9 late in a row, then one in each 100 after the first 1,000:
            // the lateness p99 so far never passes the bound.
            let late = index < 9 || (index >= 1_000 && index % 100 == 0)
            #expect(lateness.started(lateness: late ? .seconds(2) : .zero) == nil, "\(index)")
            lateness.ended(took: .milliseconds(1))
        }
    }

    @Test("free lanes: the runner itself is the cause; one at a time: parallel is the advice")
    func causes() throws {
        let free = GroupLateness(group: "g", lanes: .limit(100), peakRate: 10, planned: nil)
        var warning: String?
        for _ in 0..<10 {
            warning = free.started(lateness: .seconds(1)) ?? warning
            free.ended(took: .milliseconds(1))
        }
        #expect(try #require(warning).contains("the runner itself could not keep up (lanes were free when they were due)"))
        let sequential = GroupLateness(group: "g", lanes: .sequential, peakRate: 10, planned: nil)
        warning = nil
        for _ in 0..<10 {
            warning = sequential.started(lateness: .seconds(1)) ?? warning
            sequential.ended(took: .milliseconds(500))
        }
        #expect(try #require(warning).contains("its iterations run one at a time, and each outlasts the schedule: give it 'parallel limit 5'"))
    }
}
