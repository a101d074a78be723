import Glibc
import JSON
import PromiseEngine
import WorkflowModel
package import WorkflowRun

/// `--report html=PATH`: one self-contained page (inline style, script and
/// data; nothing fetched). The run's data is a JSON block in the page; the
/// script (`HTMLPage`) draws the failures first, then the timeline: groups
/// as lanes that fold, foreach lanes folded, every step a bar on a time
/// axis that fits the window, the critical path outlined, every row
/// opening the step's details (command, attempts, message, output tails);
/// a status filter and a label search.
package enum HTMLReport {
    /// Output tails in the page: a failed step's streams keep their last
    /// 32 KiB, other steps' their last 4 KiB (the JSON report keeps up to
    /// `--report-output`), so 10,000 steps stay a page a browser opens.
    static let failedTailBytes = 32 * 1024
    static let tailBytes = 4 * 1024

    /// The run as the HTML page.
    package static func render(_ result: RunResult) -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width,initial-scale=1">
        <title>\(escape(result.workflow)): \(result.status.words)</title>
        <style>
        \(HTMLPage.style)
        </style></head><body>
        <header id="header"></header>
        <div class="toolbar" id="toolbar"></div>
        <section id="failures"></section>
        <section id="stats"></section>
        <section id="handled"></section>
        <h2>Timeline</h2>
        <div class="timeline" id="timeline"></div>
        <noscript><p>This report draws itself with a script; the JSON block in this file holds the whole run.</p></noscript>
        <script type="application/json" id="run-data">\(data(result))</script>
        <script>
        \(HTMLPage.script)
        </script>
        </body></html>

        """
    }

    /// The run as the page's script reads it: short keys, times in seconds
    /// from the run's start, summaries listed once (iterations share them).
    static func data(_ result: RunResult) -> String {
        let runStart = result.startedAt
        var summaries: [String] = []
        var summaryIndex: [String: Int] = [:]
        var stepIndex: [String: Int] = [:]
        let critical = criticalPath(result.records, runStart: runStart)
        var criticalIndices: [JSONValue] = []
        var steps: [JSONValue] = []
        steps.reserveCapacity(result.records.count)
        for (index, record) in result.records.enumerated() {
            stepIndex[record.id] = index
            if critical.contains(record.id) { criticalIndices.append(.integer(index)) }
            let summary: Int
            if let known = summaryIndex[record.summary] {
                summary = known
            } else {
                summary = summaries.count
                summaryIndex[record.summary] = summary
                summaries.append(record.summary)
            }
            steps.append(step(record, summary: summary, runStart: runStart))
        }
        let failures: [JSONValue] = ReportFailure.all(in: result).map { failure in
            var members: [(String, JSONValue)] = [
                ("id", .string(failure.id)), ("kind", .string(failure.kind)),
                ("failureKind", .string(failure.failureKind.rawValue)), ("message", .string(failure.message)),
            ]
            if case .step = failure.source, let index = stepIndex[failure.id] { members.append(("step", .integer(index))) }
            if failure.allowed { members.append(("allowed", .bool(true))) }
            if let handler = failure.handledBy { members.append(("handledBy", .string(handler))) }
            return .object(members)
        }
        let groups: [JSONValue] = result.groups.map { group in
            var members: [(String, JSONValue)] = [("id", .string(group.id)), ("kind", .string(group.kind)), ("st", .string(group.status.rawValue))]
            if let label = group.label { members.append(("label", .string(label))) }
            if let parent = group.parent { members.append(("parent", .string(parent))) }
            if let start = group.startedAt { members.append(("t", .decimal(max(0, start - runStart), places: 3))) }
            if let duration = group.duration { members.append(("d", .decimal(duration.seconds, places: 3))) }
            if let failure = group.failure {
                members.append(("e", .object([("kind", .string(failure.kind.rawValue)), ("message", .string(failure.message))])))
            }
            return .object(members)
        }
        let data = JSONValue.object([
            ("workflow", .string(result.workflow)),
            ("status", .string(result.status.reported)),
            ("statusWords", .string(result.status.words)),
            ("startedAt", .string(ReportTime.iso8601(result.startedAt))),
            ("duration", .decimal(result.duration.seconds, places: 3)),
            ("failures", .array(failures)),
            ("critical", .array(criticalIndices)),
            ("summaries", .array(summaries.map(JSONValue.string))),
            ("groups", .array(groups)),
            ("steps", .array(steps)),
            // Labels that ran more than once: figures, and each non-empty
            // histogram bucket (its lowest value, µs, and count) to draw.
            (
                "stats",
                .array(
                    result.stats.map { label in
                        let latency = label.latency
                        func seconds(_ microseconds: Int64) -> JSONValue { .decimal(Double(microseconds) / 1_000_000, places: 6) }
                        return .object([
                            ("label", .string(label.label)), ("count", .integer(label.count)), ("ok", .integer(label.succeeded)),
                            ("failed", .integer(label.failed)), ("rate", .decimal(label.ratePerSecond, places: 2)),
                            (
                                "p",
                                .array(
                                    [
                                        latency.minimum == .max ? 0 : latency.minimum, latency.percentile(50), latency.percentile(90),
                                        latency.percentile(99), latency.maximum,
                                    ].map(seconds))
                            ),
                            ("buckets", .array(latency.buckets.map { .array([.integer(Int($0.low)), .integer(Int($0.count))]) })),
                            // Over time: seconds a point, then per point
                            // its completions, failures and p99 (s).
                            ("every", .decimal(label.series.width, places: 0)),
                            (
                                "series",
                                .array(
                                    label.series.points.map { point in
                                        .array([
                                            .integer(point.completions), .integer(point.failures),
                                            seconds(point.completions == 0 ? 0 : point.latency.percentile(99)),
                                        ])
                                    })
                            ),
                        ])
                    })
            ),
            // Thresholds as checked: group, as written, held, what was measured.
            (
                "thresholds",
                .array(
                    result.groups.flatMap { group in
                        group.thresholds.map { threshold in
                            .array([.string(group.id), .string(threshold.threshold.text), .bool(threshold.holds), .string(threshold.measuredText)])
                        }
                    })
            ),
            // Runs of a label past its first 1,000, counted.
            (
                "notListed",
                .object(
                    result.omitted.byStatus.sorted { $0.key.rawValue < $1.key.rawValue }
                        .map { ($0.key.rawValue, .integer($0.value)) })
            ),
        ])
        return scriptSafe(data.renderedCompact())
    }

    private static func step(_ record: StepRecord, summary: Int, runStart: Double) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("id", .string(record.id)), ("k", .string(record.kind)), ("s", .integer(summary)),
            ("st", .string(record.status.rawValue)), ("a", .integer(record.attempts)),
        ]
        if let start = record.startedAt { members.append(("t", .decimal(max(0, start - runStart), places: 3))) }
        if let duration = record.duration { members.append(("d", .decimal(duration.seconds, places: 3))) }
        if let group = record.group { members.append(("g", .string(group))) }
        if let exit = record.exitCode { members.append(("x", .integer(exit))) }
        if record.executor == .slurm {
            members.append(("on", .string("Slurm" + (record.slurmJob.map { ", job \($0)" } ?? ""))))
        }
        if let source = record.upToDateFrom { members.append(("fr", .string(source.rawValue))) }
        if record.allowedFailure { members.append(("al", .bool(true))) }
        if let handler = record.handledBy { members.append(("hb", .string(handler))) }
        if let status = record.httpStatus { members.append(("h", .integer(status))) }
        if let message = record.message { members.append(("m", .string(message))) }
        if let failure = record.failure {
            members.append(("e", .object([("kind", .string(failure.kind.rawValue)), ("message", .string(failure.message))])))
        }
        let limit = record.status == .failed ? failedTailBytes : tailBytes
        if let stdout = record.standardOutput, !stdout.text.isEmpty {
            let (text, cut) = tail(stdout.text, limit)
            members.append(("out", .string(text)))
            if cut || stdout.truncated { members.append(("outCut", .bool(true))) }
        }
        if let stderr = record.standardError, !stderr.text.isEmpty {
            let (text, cut) = tail(stderr.text, limit)
            members.append(("err", .string(text)))
            if cut || stderr.truncated { members.append(("errCut", .bool(true))) }
        } else if let tail = record.outputTail {
            members.append(("err", .string(tail)))
        }
        if !record.attemptLog.isEmpty {
            members.append(
                (
                    "tries",
                    .array(
                        record.attemptLog.map { attempt in
                            var fields: [(String, JSONValue)] = [
                                ("n", .integer(attempt.number)), ("t", .decimal(max(0, attempt.startedAt - runStart), places: 3)),
                                ("d", .decimal(attempt.duration.seconds, places: 3)), ("st", .string(attempt.status.rawValue)),
                            ]
                            if let exit = attempt.exitCode { fields.append(("x", .integer(exit))) }
                            if let failure = attempt.failure {
                                fields.append(("e", .object([("kind", .string(failure.kind.rawValue)), ("message", .string(failure.message))])))
                            }
                            if let tail = attempt.outputTail { fields.append(("err", .string(tail))) }
                            return .object(fields)
                        })
                ))
        }
        return .object(members)
    }

    /// The last `limit` bytes of `text`, from a line start when one is near.
    private static func tail(_ text: String, _ limit: Int) -> (String, Bool) {
        let utf8 = text.utf8
        guard utf8.count > limit else { return (text, false) }
        var index = utf8.index(utf8.endIndex, offsetBy: -limit)
        while index < utf8.endIndex, (utf8[index] & 0xC0) == 0x80 { index = utf8.index(after: index) }
        var kept = Substring(utf8[index...])
        if let newline = kept.firstIndex(of: "\n"), kept.distance(from: kept.startIndex, to: newline) < 200 {
            kept = kept[kept.index(after: newline)...]
        }
        return (String(kept), true)
    }

    /// JSON inside `<script>`: no `<` at all (it is only ever inside
    /// strings, where `\u003c` means the same), so no `</script>` or
    /// `<!--` in the data can end the block early.
    private static func scriptSafe(_ json: String) -> String {
        json.replacing("<", with: "\\u003c").replacing("\u{2028}", with: "\\u2028").replacing("\u{2029}", with: "\\u2029")
    }

    /// The chain of steps that decided when the run ended: from the step
    /// that ended last, back through the step that ended last before it
    /// began. O(n log n): one sort by end, then a binary search per link.
    package static func criticalPath(_ records: [StepRecord], runStart: Double) -> Set<String> {
        func end(_ record: StepRecord) -> Double { (record.startedAt ?? runStart) + (record.duration?.seconds ?? 0) }
        let byEnd = records.filter { $0.startedAt != nil }.map { (end: end($0), record: $0) }.sorted { $0.end < $1.end }
        var path: Set<String> = []
        guard var index = byEnd.indices.last else { return path }
        path.insert(byEnd[index].record.id)
        while let start = byEnd[index].record.startedAt {
            // The last record before this one in end order that ended by
            // the time this one started (with 5 ms of slack).
            let limit = start + 0.005
            var low = 0
            var high = index
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

    /// Text for the page's title: one line, control characters and line
    /// breaks shown escaped, markup characters and `"` as references.
    static func escape(_ text: String) -> String {
        JUnitReport.escape(text.escapingControlCharacters(keepingLines: false)).replacing("\"", with: "&quot;")
    }
}
