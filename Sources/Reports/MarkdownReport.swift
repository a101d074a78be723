import JSON
import PromiseEngine
import WorkflowModel
package import WorkflowRun

/// `--report markdown=PATH`, and the summary appended to
/// `$GITHUB_STEP_SUMMARY`: for people. The status and counts, the
/// failures first with their messages and output tails, then a table of
/// the steps. Bounded, so that a run of 10,000 steps stays readable (and
/// under the 1 MiB GitHub allows a step summary): the first 1,000 steps in
/// the table, the first 50 failures in detail, each stream's last 60 lines.
package enum MarkdownReport {
    static let rowLimit = 1000
    static let failureLimit = 50
    static let tailLines = 60

    /// The run in Markdown; `forStepSummary`: the summary appended to
    /// `$GITHUB_STEP_SUMMARY`.
    package static func render(_ result: RunResult, forStepSummary: Bool = false) -> String {
        let records = result.records
        let failures = ReportFailure.all(in: result)
        let mark = result.status == .succeeded ? "✅" : "❌"
        var text = "## \(mark) \(inline(result.workflow)): \(result.status.words)\n\n"
        var facts = [counts(records)]
        facts.append("wall \(Format.duration(result.duration))")
        facts.append("started \(ReportTime.iso8601(result.startedAt))")
        text += facts.joined(separator: " · ") + "\n\n"

        // What decided the run first: the thresholds and the
        // failures of the run; then the statistics with their series;
        // then what the workflow handled.
        text += thresholdsTable(result)
        var shown = failureSection("Failures", failures.unhandled, shown: 0)
        text += shown.text
        text += statistics(result.stats)
        shown = failureSection("Handled failures (not failures of the run)", failures.handled, shown: shown.count)
        text += shown.text
        if failures.count > failureLimit {
            text += "… and \(failures.count - failureLimit) more failures: the JSON report has them all.\n\n"
        }
        // What a step stopped by a lost race, fail-fast or a timeout above
        // it had printed (a server ended at the end of the run, say).
        let stopped = records.filter {
            $0.status == .cancelled && ($0.standardOutput?.text.isEmpty == false || $0.standardError?.text.isEmpty == false)
        }
        if !stopped.isEmpty {
            text += "### Cancelled steps\n\n"
            for record in stopped.prefix(failureLimit) {
                text += "#### \(code(record.id)) (\(record.kind), cancelled\(record.slurmJob.map { ", Slurm job \($0)" } ?? ""))\n\n"
                if let stderr = record.standardError?.text, !stderr.isEmpty { text += details("stderr", lastLines(stderr)) }
                if let stdout = record.standardOutput?.text, !stdout.isEmpty { text += details("stdout", lastLines(stdout)) }
            }
            if stopped.count > failureLimit {
                text += "… and \(stopped.count - failureLimit) more cancelled steps: the JSON report has them all.\n\n"
            }
        }
        text += "### Steps\n\n"
        text += "| step | status | duration | details |\n|:---|:---|---:|:---|\n"
        for record in records.prefix(rowLimit) {
            let duration = record.duration.map(Format.duration) ?? ""
            text += "| \(code(record.id)) | \(symbol(record.status)) \(record.status.rawValue) | \(duration) | \(cell(detail(record))) |\n"
        }
        if records.count > rowLimit {
            text += "\n… and \(records.count - rowLimit) more steps: the JSON report has them all.\n"
        }
        return text
    }

    /// Failures in detail under `title`, up to `failureLimit` with those
    /// `shown` before; the text and how many are shown in all.
    private static func failureSection(_ title: String, _ list: [ReportFailure], shown: Int) -> (text: String, count: Int) {
        guard !list.isEmpty, shown < failureLimit else { return ("", shown) }
        var text = "### \(title)\n\n"
        for failure in list.prefix(failureLimit - shown) {
            let handled = failure.handledBy.map { ", handled by \(inline($0))" } ?? ""
            text += "#### \(code(failure.id)) (\(failure.kind), \(failure.failureKind.rawValue)\(handled))\n\n"
            text += fenced(failure.message)
            if case .step(let record) = failure.source {
                if !record.attemptLog.isEmpty {
                    text += "Attempts:\n\n" + fenced(ReportText.attempts(record.attemptLog))
                }
                if let stderr = record.standardError?.text, !stderr.isEmpty {
                    text += details("stderr", lastLines(stderr))
                } else if let tail = record.outputTail {
                    text += details("stderr", tail)
                }
                if let stdout = record.standardOutput?.text, !stdout.isEmpty {
                    text += details("stdout", lastLines(stdout))
                }
            }
        }
        return (text, shown + list.count)
    }

    /// The thresholds as checked when their groups ended.
    private static func thresholdsTable(_ result: RunResult) -> String {
        let thresholds = result.groups.flatMap { group in group.thresholds.map { (group.id, $0) } }
        guard !thresholds.isEmpty else { return "" }
        var text = "### Thresholds\n\n| group | threshold | result | measured |\n|:---|:---|:---|:---|\n"
        for (group, threshold) in thresholds {
            text +=
                "| \(code(group)) | \(code(threshold.threshold.text)) | \(threshold.holds ? "✅ held" : "❌ failed") | "
                + "\(cell(threshold.measuredText)) |\n"
        }
        return text + "\n"
    }

    /// The most rows of series the report holds, over every label (the
    /// JSON report has them all): a step summary stays under GitHub's 1 MiB.
    static let seriesRowLimit = 3_000

    /// Labels that ran more than once: a table, then each
    /// label's series over time in a folded table.
    private static func statistics(_ stats: [LabelStats]) -> String {
        guard !stats.isEmpty else { return "" }
        func time(_ microseconds: Int64) -> String { Format.latency(microseconds: microseconds) }
        var text = "### Statistics\n\n"
        text += "| label | runs | ok | failed | rate/s | min | p50 | p90 | p95 | p99 | max | late p99 |\n"
        text += "|:---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
        for label in stats {
            let latency = label.latency
            text +=
                "| \(code(label.label)) | \(label.count) | \(label.succeeded) | \(label.failed) | "
                + "\(FixedPoint.text(label.ratePerSecond, places: 1)) | \(time(latency.minimum == .max ? 0 : latency.minimum)) | "
                + "\(time(latency.percentile(50))) | \(time(latency.percentile(90))) | \(time(latency.percentile(95))) | "
                + "\(time(latency.percentile(99))) | \(time(latency.maximum)) | \(label.lateness.map { time($0.percentile(99)) } ?? "-") |\n"
        }
        text += "\n"
        var rowsLeft = seriesRowLimit
        for label in stats {
            let series = label.series
            guard !series.points.isEmpty else { continue }
            guard rowsLeft >= series.points.count else {
                text += "… the series of further labels: the JSON report has them (`stats.LABEL.series`).\n\n"
                break
            }
            rowsLeft -= series.points.count
            let every = Int(series.width)
            text +=
                "<details><summary>\(inline(label.label)) over time (a point every \(every == 1 ? "second" : "\(every) seconds"))"
                + "</summary>\n\n| t (s) | completions | failures | p50 | p99 |\n|---:|---:|---:|---:|---:|\n"
            for (index, point) in series.points.enumerated() {
                let empty = point.completions == 0
                text +=
                    "| \(index * every) | \(point.completions) | \(point.failures) | "
                    + "\(empty ? "-" : time(point.latency.percentile(50))) | \(empty ? "-" : time(point.latency.percentile(99))) |\n"
            }
            text += "\n</details>\n\n"
        }
        return text
    }

    private static func detail(_ record: StepRecord) -> String {
        var parts: [String] = []
        if let message = record.message { parts.append(message) }
        if let exit = record.exitCode { parts.append("exit \(exit)") }
        if record.executor == .slurm { parts.append("on Slurm" + (record.slurmJob.map { " (job \($0))" } ?? "")) }
        if record.upToDateFrom == .cache { parts.append("restored from cache") }
        if let status = record.httpStatus { parts.append("HTTP \(status)") }
        if record.attempts > 1 { parts.append("\(record.attempts) attempts") }
        if let failure = record.failure {
            parts.append((record.handledBy.map { "handled by \($0), " } ?? "") + "\(failure.kind.rawValue): \(failure.message)")
        }
        if parts.isEmpty { parts.append(record.summary) }
        let text = parts.joined(separator: "; ")
        return text.count > 200 ? String(text.prefix(199)) + "…" : text
    }

    private static func counts(_ records: [StepRecord]) -> String {
        var counts: [StepStatus: Int] = [:]
        for record in records { counts[record.status, default: 0] += 1 }
        let parts = [StepStatus.succeeded, .upToDate, .failed, .cancelled, .skipped].compactMap { status in
            counts[status].map { "\($0) \(status.rawValue)" }
        }
        return "**\(records.count) steps**" + (parts.isEmpty ? "" : ": " + parts.joined(separator: ", "))
    }

    private static func symbol(_ status: StepStatus) -> String {
        switch status {
        case .succeeded: return "✓"
        case .upToDate: return "≡"
        case .failed: return "✗"
        case .skipped: return "○"
        case .cancelled: return "⊘"
        case .pending, .running: return "…"
        }
    }

    private static func lastLines(_ text: String) -> String {
        var lines = text.escapingControlCharacters(keepingLines: true).split(separator: "\n", omittingEmptySubsequences: false)
        if lines.last?.isEmpty == true { lines.removeLast() }
        let kept = lines.suffix(tailLines)
        let note = lines.count > tailLines ? "… (\(lines.count - tailLines) lines before)\n" : ""
        return note + kept.joined(separator: "\n")
    }

    /// A collapsed block with a fenced tail in it.
    private static func details(_ title: String, _ text: String) -> String {
        "<details><summary>\(title)</summary>\n\n" + fenced(text) + "</details>\n\n"
    }

    /// A fenced block whose fence is longer than any run of backticks in
    /// it; control characters shown escaped, a CR LF as a line break.
    static func fenced(_ text: String) -> String {
        let text = text.escapingControlCharacters(keepingLines: true)
        var longest = 0
        var run = 0
        for character in text {
            if character == "`" {
                run += 1
                longest = max(longest, run)
            } else {
                run = 0
            }
        }
        let fence = String(repeating: "`", count: max(3, longest + 1))
        let body = text.hasSuffix("\n") ? text : text + "\n"
        return fence + "text\n" + body + fence + "\n\n"
    }

    /// Inline code, with a fence the text cannot close.
    static func code(_ text: String) -> String {
        let flat = oneLine(text)
        if flat.contains("`") { return "``" + flat + "``" }
        return "`" + flat + "`"
    }

    /// Text fit for one table cell, shown as written: no line breaks, and
    /// Markdown's and HTML's markup characters escaped (a `|` would end the
    /// cell, a `<img>` or a backtick run would be markup).
    static func cell(_ text: String) -> String {
        inline(text)
    }

    /// Text shown as written inside a line (a heading, a table cell):
    /// every ASCII punctuation character Markdown or HTML could read as
    /// markup backslash-escaped (CommonMark §2.4), line breaks as spaces.
    static func inline(_ text: String) -> String {
        var escaped = ""
        for character in oneLine(text) {
            if "\\`*_[]<>#|~&!".contains(character) { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }

    /// Every line break (LF, CR LF, a lone CR, and Unicode's) as a space,
    /// other control characters shown escaped: text that stays on its line.
    private static func oneLine(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 }).escapingControlCharacters(keepingLines: true)
    }
}
