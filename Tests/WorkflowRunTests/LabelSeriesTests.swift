import Testing

@testable import WorkflowRun

@Suite("LabelSeries")
struct LabelSeriesTests {
    @Test("a point a second; past 600 points neighbours merge, keeping every run")
    func merges() {
        var series = LabelSeries()
        for second in 0..<10 { series.add(end: 1_000 + Double(second) + 0.5, failed: second == 3, latency: .milliseconds(second + 1)) }
        #expect(series.width == 1 && series.points.count == 10)
        #expect(series.points[3].failures == 1 && series.points[3].completions == 1)
        // 1,300 seconds: 600 points of 1 s do not hold it, 650 of 2 s
        // neither; 325 of 4 s do.
        for second in 10..<1_300 { series.add(end: 1_000 + Double(second) + 0.5, failed: false, latency: .milliseconds(2)) }
        #expect(series.width == 4)
        #expect(series.points.count == 325)
        #expect(series.points.map(\.completions).reduce(0, +) == 1_300)
        #expect(series.points.map(\.failures).reduce(0, +) == 1)
        #expect(series.points[0].latency.count == 4)
    }
}
