import Testing
import WorkflowModel
import WorkflowRun

@testable import PromiseRun

/// The Prometheus text format of a run's metrics: families, escaping,
/// cumulative buckets.
@Suite("Metrics exposition")
struct MetricsExpositionTests {
    private func record(_ id: String, _ status: StepStatus, http: Int? = nil) -> StepRecord {
        var record = StepRecord(id: id, label: "hit", kind: "http", summary: "GET", order: 0)
        record.status = status
        record.attempts = 1
        record.httpStatus = http
        record.duration = .milliseconds(3)
        return record
    }

    @Test("runs by status, responses by code, a cumulative histogram ending at +Inf with _sum and _count")
    func series() {
        let metrics = RunMetrics(workflow: "w")
        // A start is counted without a record (none is copied for it).
        #expect(!metrics.showsStart(ofAttempt: 1, inGroup: nil))
        metrics.stepBegan("hit[0]", attempt: 1)
        metrics.stepBegan("hit[0]", attempt: 2)
        #expect(MetricsExposition.render(metrics.snapshot()).contains("promise_run_steps_running 1\n"), "a retry is the same step running")
        metrics.stepFinished(record("hit[0]", .succeeded, http: 200), latency: .milliseconds(2), lateness: .zero)
        metrics.stepFinished(record("hit[1]", .failed, http: 503), latency: .milliseconds(30), lateness: nil)
        let text = MetricsExposition.render(metrics.snapshot())
        #expect(text.contains("# HELP promise_run_step_runs_total "))
        #expect(text.contains("# TYPE promise_run_step_latency_seconds histogram\n"))
        #expect(text.contains("promise_run_step_runs_total{label=\"hit\",status=\"succeeded\"} 1\n"))
        #expect(text.contains("promise_run_step_runs_total{label=\"hit\",status=\"failed\"} 1\n"))
        #expect(text.contains("promise_run_http_responses_total{label=\"hit\",code=\"503\"} 1\n"))
        #expect(text.contains("promise_run_step_latency_seconds_bucket{label=\"hit\",le=\"0.001\"} 0\n"))
        #expect(text.contains("promise_run_step_latency_seconds_bucket{label=\"hit\",le=\"0.002\"} 1\n"))
        #expect(text.contains("promise_run_step_latency_seconds_bucket{label=\"hit\",le=\"60\"} 2\n"))
        #expect(text.contains("promise_run_step_latency_seconds_bucket{label=\"hit\",le=\"+Inf\"} 2\n"))
        #expect(text.contains("promise_run_step_latency_seconds_count{label=\"hit\"} 2\n"))
        #expect(text.contains("promise_run_step_latency_seconds_sum{label=\"hit\"} 0.03"))
        #expect(text.contains("promise_run_step_lateness_seconds_count{label=\"hit\"} 1\n"))
        #expect(text.contains("promise_run_steps_running 0\n"))
        #expect(text.contains("promise_run_status{workflow=\"w\",status=\"running\"} 1\n"))
        // Cumulative: never decreasing along the buckets.
        let counts = text.split(separator: "\n").filter { $0.hasPrefix("promise_run_step_latency_seconds_bucket") }
            .compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }
        #expect(counts == counts.sorted() && counts.count == BucketCounts.bounds.count + 1)
    }

    @Test("bounds: 1 ms to 60 s, each at most 6% above the last")
    func bounds() {
        let bounds = BucketCounts.bounds
        #expect(bounds.first == 1000 && bounds.last == 60_000_000)
        for (low, high) in zip(bounds, bounds.dropFirst()) {
            #expect(high > low && Double(high) <= Double(low) * 1.06)
        }
        #expect(MetricsExposition.seconds(1_059) == "0.001059")
        #expect(MetricsExposition.seconds(60_000_000) == "60")
    }

    @Test("label values escape backslash, double quote and line feed")
    func escaping() {
        #expect(MetricsExposition.escapedLabel("a\\b\"c\nd") == "a\\\\b\\\"c\\nd")
        let metrics = RunMetrics(workflow: "say \"hi\"\n")
        #expect(MetricsExposition.render(metrics.snapshot()).contains("workflow=\"say \\\"hi\\\"\\n\""))
    }
}
