import PromiseEngine
import Reports
import Testing
import WorkflowModel
import WorkflowRun

@Suite("HTML report: the critical path")
struct HTMLReportTests {
    private func record(_ id: String, start: Double?, seconds: Double?) -> StepRecord {
        var record = StepRecord(id: id, label: id, kind: "sh", summary: id, order: 0)
        record.startedAt = start.map { 1_000 + $0 }
        record.duration = seconds.map { .milliseconds(Int64($0 * 1_000)) }
        record.status = start == nil ? .skipped : .succeeded
        return record
    }

    @Test("runs back from the step that ended last through the step that ended last before each began")
    func chainOfSteps() {
        let records = [
            record("compile", start: 0, seconds: 1),
            record("lint", start: 0, seconds: 0.5),
            record("test", start: 1, seconds: 2),
            record("docs", start: 1, seconds: 0.2),
            record("package", start: 3, seconds: 1),
            record("never", start: nil, seconds: nil),
        ]
        #expect(HTMLReport.criticalPath(records, runStart: 1_000) == ["package", "test", "compile"])
    }

    @Test("steps that take no time at the same instant form one chain, each once")
    func instantSteps() {
        let records = (0..<50).map { record("log\($0)", start: 0, seconds: 0) }
        let path = HTMLReport.criticalPath(records, runStart: 1_000)
        #expect(path.count == 50)
    }

    @Test("no records, no path")
    func empty() {
        #expect(HTMLReport.criticalPath([], runStart: 0).isEmpty)
    }
}
