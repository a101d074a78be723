import PromiseEngine

/// The end of a run: a table of every step, the failure with its cause and
/// the last lines of stderr, wall time against the sum of step times.
enum Summary {
    /// Above this many steps the table lists only those that did not succeed.
    static let fullTableLimit = 60

    static func render(_ result: RunResult, style: ConsoleStyle, verbosity: Verbosity, interruptedBy signal: Int32?) -> String {
        var text = ""
        let records = result.records
        if verbosity != .quiet, !records.isEmpty {
            text += "\n" + table(records, style: style)
        }
        let stepTime = records.compactMap(\.duration).reduce(Duration.zero, +)
        let wall = result.duration
        var headline: String
        switch result.status {
        case .succeeded: headline = style.green("✓ \(result.workflow) succeeded")
        case .failed: headline = style.red("✗ \(result.workflow) failed")
        case .timedOut: headline = style.red("✗ \(result.workflow) timed out (--timeout)")
        case .interrupted:
            let name = signal.map(SignalWatcher.name(of:)) ?? "SIGINT"
            headline = style.yellow("⊘ \(result.workflow) interrupted by \(name)")
        }
        headline += " in \(Format.duration(wall))"
        if verbosity != .quiet, stepTime > .seconds(1) {
            let speedup = wall.seconds > 0 ? stepTime.seconds / wall.seconds : 1
            headline += style.dim(" (steps took \(Format.duration(stepTime)) in all: \(Format.fixed(speedup, 1))x from parallelism)")
        }
        text += "\n" + headline + "\n"
        if let error = result.error, result.status == .failed {
            text += failure(error, records: records, style: style)
        }
        return text
    }

    private static func table(_ records: [StepRecord], style: ConsoleStyle) -> String {
        var rows = records
        var note = ""
        if records.count > fullTableLimit {
            rows = records.filter { $0.status != .succeeded }.prefix(fullTableLimit).map { $0 }
            let counts = Dictionary(grouping: records, by: \.status).mapValues(\.count)
            note = style.dim("\(records.count) steps: " + [StepStatus.succeeded, .failed, .cancelled, .skipped].compactMap { status in
                counts[status].map { "\($0) \(status.rawValue)" }
            }.joined(separator: ", ") + (rows.isEmpty ? "" : "; those that did not succeed:")) + "\n"
        }
        guard !rows.isEmpty else { return note }
        let idWidth = min(40, max(4, rows.map(\.id.count).max() ?? 4))
        let kindWidth = max(4, rows.map(\.kind.count).max() ?? 4)
        var text = note
        text += style.dim("\(Format.padded("step", idWidth))  \(Format.padded("kind", kindWidth))  status     attempts  duration  message") + "\n"
        for record in rows {
            let status = Format.padded(record.status.rawValue, 9)
            let painted: String
            switch record.status {
            case .succeeded: painted = style.green(status)
            case .failed: painted = style.red(status)
            case .cancelled: painted = style.yellow(status)
            default: painted = style.dim(status)
            }
            let duration = record.duration.map(Format.duration) ?? "-"
            let message = record.failure.map { String($0.message.split(separator: "\n").first ?? "") } ?? ""
            text += "\(Format.padded(String(record.id.prefix(idWidth)), idWidth))  \(Format.padded(record.kind, kindWidth))  \(painted)  "
            text += Format.padded(String(repeating: " ", count: max(0, 8 - String(record.attempts).count)) + String(record.attempts), 8)
            text += "  " + String(repeating: " ", count: max(0, 8 - duration.count)) + duration
            text += "  " + String(message.prefix(100)) + "\n"
        }
        return text
    }

    /// Which step failed, how and why, with the last lines of its stderr.
    private static func failure(_ error: RunError, records: [StepRecord], style: ConsoleStyle) -> String {
        var text = "  \(style.bold(error.stepID)) (\(error.kind.rawValue)): \(error.message)\n"
        if let record = records.first(where: { $0.id == error.stepID }), let tail = record.outputTail {
            text += style.dim("  last lines of stderr:") + "\n"
            for line in tail.split(separator: "\n", omittingEmptySubsequences: false) {
                text += style.dim("  │ ") + line + "\n"
            }
        }
        for other in error.others.prefix(10) {
            text += "  also \(style.bold(other.stepID)) (\(other.kind.rawValue)): \(other.message)\n"
        }
        return text
    }

    /// `::error` lines GitHub Actions turns into annotations, one per failed step.
    static func githubAnnotations(_ result: RunResult, workflow: Workflow) -> String {
        var locations: [String: SourceLocation] = [:]
        for node in workflow.allNodes { locations[node.id] = node.location }
        var text = ""
        for record in result.records where record.status == .failed && record.kind != "rethrow" {
            let nodeID = record.id.firstIndex(of: "[").map { String(record.id[..<$0]) } ?? record.id
            var properties = ""
            if let location = locations[nodeID] {
                properties = "file=\(escapeProperty(workflow.source.displayPath)),line=\(location.line),col=\(location.column),"
            }
            let title = "\(record.id) failed (\(record.failure?.kind.rawValue ?? "fail"))"
            var message = record.failure?.message ?? "failed"
            if let tail = record.outputTail { message += "\n" + tail }
            text += "::error \(properties)title=\(escapeProperty(title))::\(escapeData(message))\n"
        }
        return text
    }

    private static func escapeData(_ text: String) -> String {
        text.replacing("%", with: "%25").replacing("\r", with: "%0D").replacing("\n", with: "%0A")
    }

    private static func escapeProperty(_ text: String) -> String {
        escapeData(text).replacing(":", with: "%3A").replacing(",", with: "%2C")
    }
}

