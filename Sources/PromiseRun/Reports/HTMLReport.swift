import Glibc
import PromiseEngine

/// `--report html=PATH`: one self-contained page (no network, no script):
/// a timeline of the steps as bars on a time axis, colored by status, the
/// critical path outlined, then each failure with its message and output
/// tail, then every step in a table.
enum HTMLReport {
    /// Beyond this, the timeline and the table show the first rows only.
    static let rowLimit = 2000

    static func render(_ result: RunResult) -> String {
        let records = result.records
        let total = max(result.duration.seconds, 0.001)
        let started = records.filter { $0.startedAt != nil }
        let critical = criticalPath(started, runStart: result.startedAt)
        var html = """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8">
        <title>\(escape(result.workflow)): \(result.status.rawValue)</title>
        <style>
        body{font:14px/1.4 system-ui,-apple-system,Segoe UI,sans-serif;margin:24px;color:#1f2328;background:#fff}
        h1{font-size:20px;margin:0 0 4px} h2{font-size:16px;margin:24px 0 8px}
        .meta{color:#59636e;margin-bottom:16px}
        .badge{display:inline-block;padding:1px 8px;border-radius:10px;color:#fff;font-weight:600}
        .succeeded{background:#1a7f37}.failed{background:#cf222e}.skipped{background:#8c959f}.cancelled{background:#bf8700}
        .interrupted,.timedOut{background:#bf8700}
        svg text{font:12px ui-monospace,SFMono-Regular,Menlo,monospace;fill:#1f2328}
        table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #d1d9e0;padding:4px 8px;text-align:left;vertical-align:top}
        th{background:#f6f8fa} td.num{text-align:right;font-variant-numeric:tabular-nums}
        pre{background:#f6f8fa;padding:8px;overflow:auto;margin:4px 0 12px}
        .legend span{margin-right:12px}.swatch{display:inline-block;width:10px;height:10px;margin-right:4px;vertical-align:middle}
        </style></head><body>
        <h1>\(escape(result.workflow)) <span class="badge \(result.status.rawValue)">\(result.status.rawValue)</span></h1>
        <div class="meta">started \(escape(ReportTime.iso8601(result.startedAt))) · wall \(Format.duration(result.duration)) · \(records.count) steps · \(summaryCounts(records))</div>

        """
        html += "<h2>Timeline</h2>\n"
        html += """
        <div class="legend"><span><i class="swatch succeeded"></i>succeeded</span><span><i class="swatch failed"></i>failed</span><span><i class="swatch cancelled"></i>cancelled</span><span><i class="swatch" style="background:#fff;outline:2px solid #0969da"></i>critical path</span></div>

        """
        html += timeline(started.prefix(rowLimit), total: total, runStart: result.startedAt, critical: critical)
        if started.count > rowLimit { html += "<p>Showing the first \(rowLimit) of \(started.count) steps that ran.</p>\n" }

        let failures = records.filter { $0.status == .failed }
        if !failures.isEmpty {
            html += "<h2>Failures</h2>\n"
            for record in failures.prefix(rowLimit) {
                html += "<h3>\(escape(record.id)) <small>(\(escape(record.failure?.kind.rawValue ?? "fail")))</small></h3>\n"
                html += "<div>\(escape(record.summary))</div>\n<pre>\(escape(record.failure?.message ?? ""))</pre>\n"
                if let tail = record.outputTail { html += "<div>last lines of stderr</div>\n<pre>\(escape(tail))</pre>\n" }
            }
        }
        html += "<h2>Steps</h2>\n<table><tr><th>step</th><th>kind</th><th>status</th><th>attempts</th><th>duration</th><th>message</th></tr>\n"
        for record in records.prefix(rowLimit) {
            html += "<tr><td>\(escape(record.id))</td><td>\(escape(record.kind))</td>"
            html += "<td><span class=\"badge \(record.status.rawValue)\">\(record.status.rawValue)</span></td>"
            html += "<td class=\"num\">\(record.attempts)</td><td class=\"num\">\(record.duration.map(Format.duration) ?? "")</td>"
            html += "<td>\(escape(record.failure?.message ?? ""))</td></tr>\n"
        }
        html += "</table>\n"
        if records.count > rowLimit { html += "<p>Showing the first \(rowLimit) of \(records.count) steps; the JSON report has them all.</p>\n" }
        html += "</body></html>\n"
        return html
    }

    private static func timeline(_ records: ArraySlice<StepRecord>, total: Double, runStart: Double, critical: Set<String>) -> String {
        let labelWidth = 220.0, chartWidth = 760.0, rowHeight = 22.0, axisHeight = 24.0
        let height = axisHeight + rowHeight * Double(records.count) + 8
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(labelWidth + chartWidth + 20))\" height=\"\(Int(height))\" role=\"img\" aria-label=\"timeline\">\n"
        // Axis with about eight ticks at round values.
        let step = niceStep(total / 8)
        var tick = 0.0
        while tick <= total + step / 2 {
            let x = labelWidth + chartWidth * min(tick / total, 1)
            svg += "<line x1=\"\(f(x))\" y1=\"\(f(axisHeight - 6))\" x2=\"\(f(x))\" y2=\"\(f(height))\" stroke=\"#d1d9e0\"/>"
            svg += "<text x=\"\(f(x + 2))\" y=\"\(f(axisHeight - 10))\">\(escape(Format.seconds(tick)))</text>\n"
            tick += step
        }
        for (row, record) in records.enumerated() {
            let y = axisHeight + rowHeight * Double(row)
            let start = max(0, (record.startedAt ?? runStart) - runStart)
            let length = record.duration?.seconds ?? 0
            let x = labelWidth + chartWidth * min(start / total, 1)
            let width = max(2, chartWidth * min(length / total, 1))
            let color = colors[record.status] ?? "#8c959f"
            let outline = critical.contains(record.id) ? " stroke=\"#0969da\" stroke-width=\"2\"" : ""
            svg += "<text x=\"4\" y=\"\(f(y + 15))\">\(escape(String(record.id.prefix(28))))</text>"
            svg += "<rect x=\"\(f(x))\" y=\"\(f(y + 4))\" width=\"\(f(width))\" height=\"14\" rx=\"3\" fill=\"\(color)\"\(outline)>"
            svg += "<title>\(escape("\(record.id) · \(record.status.rawValue) · \(Format.duration(record.duration ?? .zero)) · starts at \(Format.seconds(start))\n\(record.summary)"))</title></rect>\n"
        }
        return svg + "</svg>\n"
    }

    private static let colors: [StepStatus: String] = [
        .succeeded: "#1a7f37", .failed: "#cf222e", .cancelled: "#bf8700", .skipped: "#8c959f",
        .running: "#0969da", .pending: "#8c959f",
    ]

    /// The chain of steps that decided when the run ended: from the step
    /// that ended last, back through the step that ended last before it
    /// began. O(n log n): one sort by end, then a binary search per link.
    static func criticalPath(_ records: [StepRecord], runStart: Double) -> Set<String> {
        func end(_ record: StepRecord) -> Double { (record.startedAt ?? runStart) + (record.duration?.seconds ?? 0) }
        let byEnd = records.filter { $0.startedAt != nil }.map { (end: end($0), record: $0) }.sorted { $0.end < $1.end }
        var path: Set<String> = []
        guard var index = byEnd.indices.last else { return path }
        path.insert(byEnd[index].record.id)
        while let start = byEnd[index].record.startedAt {
            // The last record before this one in end order that ended by
            // the time this one started (with 5 ms of slack).
            let limit = start + 0.005
            var low = 0, high = index
            while low < high {
                let middle = (low + high) / 2
                if byEnd[middle].end <= limit { low = middle + 1 } else { high = middle }
            }
            guard low > 0 else { break }
            index = low - 1
            path.insert(byEnd[index].record.id)
        }
        return path
    }

    private static func summaryCounts(_ records: [StepRecord]) -> String {
        let counts = Dictionary(grouping: records, by: \.status).mapValues(\.count)
        return [StepStatus.succeeded, .failed, .cancelled, .skipped].compactMap { status in
            counts[status].map { "\($0) \(status.rawValue)" }
        }.joined(separator: ", ")
    }

    private static func niceStep(_ raw: Double) -> Double {
        guard raw > 0 else { return 1 }
        let magnitude = pow(10, floor(log10(raw)))
        for factor in [1.0, 2, 5, 10] where raw <= factor * magnitude { return factor * magnitude }
        return 10 * magnitude
    }

    private static func f(_ value: Double) -> String { Format.fixed(value, 1) }

    static func escape(_ text: String) -> String {
        JUnitReport.escape(text).replacing("\"", with: "&quot;")
    }
}
