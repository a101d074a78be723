import WorkflowRun

/// The Prometheus text exposition format (version 0.0.4) of a run's
/// metrics: each family's `# HELP` and `# TYPE` once, then its samples;
/// label values escaped (`\\`, `\"`, `\n`); a histogram's buckets
/// cumulative with `le`, ending at `+Inf`, then `_sum` and `_count`.
enum MetricsExposition {
    /// The `Content-Type` of the format.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    static func render(_ snapshot: RunMetrics.Snapshot) -> String {
        var text = ""
        text.reserveCapacity(4096 + snapshot.labels.count * 24 * 1024)
        family(
            &text, "promise_run_step_runs_total", type: "counter",
            help: "Steps that ended, by label and status (succeeded, failed, skipped, cancelled, up-to-date).")
        for (label, series) in snapshot.labels {
            for status in StepStatus.allCases {
                guard let count = series.runs[status] else { continue }
                sample(&text, "promise_run_step_runs_total", [("label", label), ("status", status.rawValue)], String(count))
            }
        }
        family(&text, "promise_run_http_responses_total", type: "counter", help: "HTTP responses received, by label and status code.")
        for (label, series) in snapshot.labels {
            for (code, count) in series.responses.sorted(by: { $0.key < $1.key }) {
                sample(&text, "promise_run_http_responses_total", [("label", label), ("code", String(code))], String(count))
            }
        }
        family(
            &text, "promise_run_step_latency_seconds", type: "histogram",
            help: "Step latency in seconds, by label (under a rate, from when the step was due).")
        for (label, series) in snapshot.labels where series.latency.count > 0 {
            histogram(&text, "promise_run_step_latency_seconds", label: label, series.latency)
        }
        family(
            &text, "promise_run_step_lateness_seconds", type: "histogram",
            help: "How late steps under a rate started, in seconds, by label.")
        for (label, series) in snapshot.labels {
            if let lateness = series.lateness { histogram(&text, "promise_run_step_lateness_seconds", label: label, lateness) }
        }
        family(&text, "promise_run_steps_running", type: "gauge", help: "Steps running now.")
        sample(&text, "promise_run_steps_running", [], String(snapshot.running))
        family(
            &text, "promise_run_status", type: "gauge",
            help: "The run's status: 1 for the current one (running, succeeded, failed, timed-out, interrupted), 0 for the others.")
        // Before the run starts, no series: a `workflow=""` one would be
        // a series of its own in Prometheus, and wrong.
        if let workflow = snapshot.workflow {
            for status in RunMetrics.statuses {
                sample(&text, "promise_run_status", [("workflow", workflow), ("status", status)], status == snapshot.status ? "1" : "0")
            }
        }
        return text
    }

    private static func family(_ text: inout String, _ name: String, type: String, help: String) {
        text += "# HELP \(name) \(escapedHelp(help))\n# TYPE \(name) \(type)\n"
    }

    private static func histogram(_ text: inout String, _ name: String, label: String, _ counts: BucketCounts) {
        var cumulative: UInt64 = 0
        for (index, bound) in BucketCounts.bounds.enumerated() {
            cumulative += counts.counts[index]
            sample(&text, name + "_bucket", [("label", label), ("le", seconds(bound))], String(cumulative))
        }
        sample(&text, name + "_bucket", [("label", label), ("le", "+Inf")], String(counts.count))
        sample(&text, name + "_sum", [("label", label)], String(counts.sum))
        sample(&text, name + "_count", [("label", label)], String(counts.count))
    }

    private static func sample(_ text: inout String, _ name: String, _ labels: [(String, String)], _ value: String) {
        text += name
        if !labels.isEmpty {
            text += "{"
            for (index, (key, value)) in labels.enumerated() {
                if index > 0 { text += "," }
                text += key + "=\"" + escapedLabel(value) + "\""
            }
            text += "}"
        }
        text += " " + value + "\n"
    }

    /// Microseconds as seconds, exactly, without trailing zeros: `0.001059`.
    static func seconds(_ microseconds: Int64) -> String {
        let whole = microseconds / 1_000_000
        let fraction = microseconds % 1_000_000
        guard fraction > 0 else { return String(whole) }
        var digits = String(fraction)
        digits = String(repeating: "0", count: 6 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return "\(whole).\(digits)"
    }

    /// A label value: backslash, double quote and line feed escaped.
    static func escapedLabel(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\n") }) else {
            return value
        }
        var escaped = ""
        for character in value.unicodeScalars {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }

    /// Help text: backslash and line feed escaped.
    private static func escapedHelp(_ value: String) -> String {
        value.replacing("\\", with: "\\\\").replacing("\n", with: "\\n")
    }
}
