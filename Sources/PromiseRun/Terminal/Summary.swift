import CommandLineOptions
import JSON
import PromiseEngine
import Reports
import WorkflowLanguage
import WorkflowModel
import WorkflowRun

/// The end of a run: a table of every step, the failure with its cause and
/// the last lines of stderr, wall time against the sum of step times.
enum Summary {
    /// Above this many steps the table lists only those that did not succeed.
    static let fullTableLimit = 60

    /// `width`: the terminal's columns, which the table fits; nil when
    /// output is not a terminal (a log: rows are not cut).
    static func render(
        _ result: RunResult, style: ConsoleStyle, verbosity: Verbosity, interruptedBy signal: Int32?,
        stopReason: String? = nil,
        width: Int? = nil
    ) -> String {
        var text = ""
        let records = result.records
        if verbosity != .quiet, !records.isEmpty {
            text += "\n" + table(records, omitted: result.omitted, style: style, width: width)
        }
        // `-q` keeps the statistics and the thresholds; nothing is
        // printed before them then, so no blank line opens the output.
        let opening = verbosity == .quiet && text.isEmpty ? "" : "\n"
        if !result.stats.isEmpty {
            text += opening + statsTable(result.stats, style: style)
        }
        let thresholds = result.groups.flatMap { group in group.thresholds.map { (group.id, $0) } }
        if !thresholds.isEmpty {
            // Each threshold as checked, with what was measured.
            text += text.isEmpty ? opening : "\n"
            for (group, threshold) in thresholds {
                let mark = threshold.holds ? style.green("✓") : style.red("✗")
                text += "\(mark) \(group): \(threshold.threshold.text)  " + style.dim("(\(threshold.measuredText))") + "\n"
            }
        }
        let stepTime = records.compactMap(\.duration).reduce(result.omitted.duration, +)
        let wall = result.duration
        var headline: String
        switch result.status {
        case .succeeded: headline = style.green("✓ \(result.workflow) succeeded")
        case .failed: headline = style.red("✗ \(result.workflow) failed")
        case .timedOut: headline = style.red("✗ \(result.workflow) timed out (\(Option.timeout.spec.long))")
        case .interrupted:
            let name = signal.map(SignalWatcher.name(of:)) ?? "SIGINT"
            headline = style.yellow("⊘ \(result.workflow) " + (stopReason ?? "interrupted by \(name)"))
        }
        headline += " in \(Format.duration(wall))"
        if verbosity != .quiet, stepTime > .seconds(1) {
            let speedup = wall.seconds > 0 ? stepTime.seconds / wall.seconds : 1
            headline += style.dim(" (steps took \(Format.duration(stepTime)) in all: \(FixedPoint.text(speedup, places: 1))x from parallelism)")
        }
        // Quiet output is the headline alone, with no blank line before it.
        text += (verbosity == .quiet && text.isEmpty ? "" : "\n") + headline + "\n"
        if let error = result.error, result.status == .failed {
            text += failure(error, records: records, style: style)
        }
        return text
    }

    /// One row per label that ran more than once: runs, how
    /// they ended, completions a second, latency percentiles, and the
    /// 99th percentile of lateness under a `rate` (`-` without).
    static func statsTable(_ stats: [LabelStats], style: ConsoleStyle) -> String {
        let headers = ["label", "runs", "ok", "failed", "rate/s", "min", "p50", "p90", "p99", "max", "late p99"]
        var rows: [[String]] = []
        for label in stats {
            let latency = label.latency
            func time(_ microseconds: Int64) -> String { Format.latency(microseconds: microseconds) }
            rows.append([
                label.label, String(label.count), String(label.succeeded), String(label.failed),
                FixedPoint.text(label.ratePerSecond, places: 1), time(latency.minimum == .max ? 0 : latency.minimum),
                time(latency.percentile(50)), time(latency.percentile(90)), time(latency.percentile(99)), time(latency.maximum),
                label.lateness.map { time($0.percentile(99)) } ?? "-",
            ])
        }
        let widths = headers.indices.map { column in ([headers[column]] + rows.map { $0[column] }).map(\.count).max() ?? 0 }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                column == 0 ? Format.padded(cell, widths[0]) : String(repeating: " ", count: widths[column] - cell.count) + cell
            }.joined(separator: "  ")
        }
        var text = style.bold(line(headers)) + "\n"
        for row in rows { text += line(row) + "\n" }
        return text
    }

    private static func table(_ records: [StepRecord], omitted: OmittedRecords, style: ConsoleStyle, width: Int?) -> String {
        var rows = records
        var note = ""
        var after = ""
        let total = records.count + omitted.count
        if total > fullTableLimit {
            // The iterations that never started (a fail-fast repeat
            // stopped) are one line, not a row each; past a label's first
            // 1,000 runs they are only counted (`omitted`).
            var notStartedLabels: [String] = []
            let unsuccessful = records.filter { record in
                guard record.status == .skipped, record.attempts == 0, let label = LabelStats.key(of: record.id) else {
                    return record.status != .succeeded && record.status != .upToDate
                }
                if !notStartedLabels.contains(label) { notStartedLabels.append(label) }
                return false
            }
            rows = Array(unsuccessful.prefix(fullTableLimit))
            // Past the table's rows, and past the records a label keeps:
            // counted, in one line, so that the rows are not taken for all.
            let unlisted =
                unsuccessful.count - rows.count + (omitted.byStatus[.failed] ?? 0) + (omitted.byStatus[.cancelled] ?? 0)
            if unlisted > 0 {
                after += style.dim("… \(Format.count(unlisted)) more that did not succeed, not listed") + "\n"
            }
            if !notStartedLabels.isEmpty {
                let skipped =
                    records.count { $0.status == .skipped } + (omitted.byStatus[.skipped] ?? 0)
                    - rows.count { $0.status == .skipped }
                let what = skipped == 1 ? "1 iteration" : "\(Format.count(skipped)) iterations"
                after += style.dim("… \(what) of \(notStartedLabels.joined(separator: ", ")) skipped (not started), not listed") + "\n"
            }
            let counts = Dictionary(grouping: records, by: \.status).mapValues(\.count).merging(omitted.byStatus, uniquingKeysWith: +)
            note =
                style.dim(
                    "\(total) steps: "
                        + [StepStatus.succeeded, .upToDate, .failed, .cancelled, .skipped].compactMap { status in
                            counts[status].map { "\($0) \(status.rawValue)" }
                        }.joined(separator: ", ") + (rows.isEmpty ? "" : "; those that did not succeed:")) + "\n"
        }
        guard !rows.isEmpty else { return note + after }
        // Columns: step, kind, status, attempts, duration, message. In a
        // narrow terminal, kind and attempts go first, then the step
        // column shrinks; the message takes what is left.
        var idWidth = min(40, max(4, rows.map(\.id.count).max() ?? 4))
        let kindWidth = max(4, rows.map(\.kind.count).max() ?? 4)
        var showKind = true
        var showAttempts = true
        let statusWidth = 10
        let attemptsWidth = 8
        let durationWidth = 8
        let minimumMessage = 12
        func fixedWidth() -> Int {
            idWidth + 2 + (showKind ? kindWidth + 2 : 0) + statusWidth + 2 + (showAttempts ? attemptsWidth + 2 : 0) + durationWidth + 2
        }
        if let width {
            if fixedWidth() + minimumMessage > width { showKind = false }
            if fixedWidth() + minimumMessage > width { showAttempts = false }
            if fixedWidth() + minimumMessage > width { idWidth = max(8, idWidth - (fixedWidth() + minimumMessage - width)) }
        }
        let messageWidth = width.map { max(0, $0 - fixedWidth()) } ?? 100
        var header = Format.padded("step", idWidth) + "  "
        if showKind { header += Format.padded("kind", kindWidth) + "  " }
        header += Format.padded("status", statusWidth) + "  "
        if showAttempts { header += "attempts  " }
        header += "duration  message"
        var text = note + style.dim(header) + "\n"
        for record in rows {
            let status = Format.padded(record.status.rawValue, statusWidth)
            let painted: String
            switch record.status {
            case .succeeded, .upToDate: painted = style.green(status)
            case .failed: painted = style.red(status)
            case .cancelled: painted = style.yellow(status)
            default: painted = style.dim(status)
            }
            let duration = record.duration.map(Format.duration) ?? "-"
            var message = record.failure.map { ConsoleStyle.foreignLine($0.message) } ?? ""
            if let handler = record.handledBy { message = "(handled by \(handler)) " + message }
            if record.upToDateFrom == .cache { message = "restored from cache" }
            var line = Format.padded(cut(record.id, idWidth), idWidth) + "  "
            if showKind { line += Format.padded(record.kind, kindWidth) + "  " }
            line += painted + "  "
            if showAttempts {
                line += String(repeating: " ", count: max(0, attemptsWidth - String(record.attempts).count)) + String(record.attempts) + "  "
            }
            line += String(repeating: " ", count: max(0, durationWidth - duration.count)) + duration
            let shown = cut(message, messageWidth)
            text += (shown.isEmpty ? line : line + "  " + shown) + "\n"
        }
        return text + after
    }

    /// `text` in at most `width` characters, with an ellipsis when cut.
    private static func cut(_ text: String, _ width: Int) -> String {
        guard text.count > width else { return text }
        guard width > 1 else { return String(text.prefix(width)) }
        return String(text.prefix(width - 1)) + "…"
    }

    /// Which step failed, how and why, with the last lines of its stderr.
    private static func failure(_ error: RunError, records: [StepRecord], style: ConsoleStyle) -> String {
        var text = "  \(style.bold(error.stepID)) (\(error.kind.rawValue)): " + message(error.message, style: style)
        if let record = records.first(where: { $0.id == error.stepID }), let tail = record.outputTail {
            text += style.dim("  last lines of stderr:") + "\n"
            for line in style.foreignLines(tail) {
                text += style.dim("  │ ") + line + "\n"
            }
        }
        for other in error.others.prefix(10) {
            text += "  also \(style.bold(other.stepID)) (\(other.kind.rawValue)): " + message(other.message, style: style)
        }
        return text
    }

    /// A failure's message after its step: its first line there, the
    /// others below it, each ending in a line break.
    private static func message(_ message: String, style: ConsoleStyle) -> String {
        style.foreignLines(message).map { $0 + "\n" }.joined()
    }

    /// `::error` lines GitHub Actions turns into annotations, one per failed step.
    static func githubAnnotations(_ result: RunResult, workflow: Workflow) -> String {
        var locations: [String: SourcePosition] = [:]
        workflow.forEachNode { locations[$0.id] = $0.location }
        var text = ""
        for record in result.records where record.status == .failed && record.kind != "rethrow" {
            let nodeID = record.id.firstIndex(of: "[").map { String(record.id[..<$0]) } ?? record.id
            var properties = ""
            if let location = locations[nodeID] {
                properties =
                    "file=\(GitHubCommands.escapeProperty(GitHubPaths.annotationPath(location.file ?? workflow.source.displayPath))),line=\(location.line),col=\(location.column),"
            }
            var title = "\(record.id) failed (\(record.failure?.kind.rawValue ?? "fail"))"
            var message = record.failure?.message ?? "failed"
            if let tail = record.outputTail { message += "\n" + tail }
            // A failure the workflow handled is a warning: the run goes on.
            let level = record.handledBy == nil ? "error" : "warning"
            if let handler = record.handledBy { title += ", handled by \(handler)" }
            text += "::\(level) \(properties)title=\(GitHubCommands.escapeProperty(title))::\(GitHubCommands.escapeData(message))\n"
        }
        // A group's own failure (a timeout) and the run's (--timeout).
        for failure in ReportFailure.all(in: result) {
            if case .step = failure.source { continue }
            var properties = ""
            let nodeID = failure.id.firstIndex(of: "[").map { String(failure.id[..<$0]) } ?? failure.id
            if let location = locations[nodeID] {
                properties =
                    "file=\(GitHubCommands.escapeProperty(GitHubPaths.annotationPath(location.file ?? workflow.source.displayPath))),line=\(location.line),col=\(location.column),"
            } else {
                properties = "file=\(GitHubCommands.escapeProperty(GitHubPaths.annotationPath(workflow.source.displayPath))),"
            }
            var title = "\(failure.id) failed (\(failure.failureKind.rawValue))"
            if let handler = failure.handledBy { title += ", handled by \(handler)" }
            let level = failure.handledBy == nil ? "error" : "warning"
            text += "::\(level) \(properties)title=\(GitHubCommands.escapeProperty(title))::\(GitHubCommands.escapeData(failure.message))\n"
        }
        return text
    }

}
