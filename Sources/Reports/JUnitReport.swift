import JSON
import PromiseEngine
import WorkflowModel
package import WorkflowRun

/// `--report junit=PATH`: one `<testcase>` per step, so CI systems show the
/// steps as tests. Failed steps have `<failure>`, unless the workflow
/// handled the failure (`allow-failure`, a `catch`, an `any` another lane
/// won): those pass and say so in `<system-err>`; skipped and cancelled
/// ones `<skipped>` (with a message saying which). A group that failed on
/// its own (a timeout) and a run that timed out are test cases of their
/// own with a `<failure>`, so `failures` counts every timeout. Each
/// threshold of a group is a test case named as written (`latency p99 <
/// 250ms`), failed when it did not hold; the group's failure is
/// then theirs. Output tails go to `<system-out>` / `<system-err>`.
/// See docs/language.md, 'Load'.
package enum JUnitReport {
    /// The run as the JUnit XML report (docs/reports.md).
    package static func render(_ result: RunResult) -> String {
        let records = result.records
        let extra = ReportFailure.all(in: result).filter {
            switch $0.source {
            case .step: return false
            // A group its thresholds failed: the thresholds' test cases say it.
            case .group(let group): return !(group.failure?.kind == .expect && group.thresholds.contains { !$0.holds })
            case .run: return true
            }
        }
        let thresholds = result.groups.flatMap { group in group.thresholds.map { (group, $0) } }
        // A label that ran more than once is one test case.
        let (single, repeated) = RepeatedLabel.split(records, stats: result.stats)
        let tests = single.count + repeated.count + extra.count + thresholds.count
        // A failure the workflow handled is no failure of the run: its test
        // case passes and says in `system-err` what failed and what
        // handled it (docs/reports.md).
        let failures =
            single.filter { $0.status == .failed && $0.handledBy == nil }.count + extra.unhandled.count
            + repeated.filter { !$0.unhandledFailures.isEmpty }.count
            + thresholds.filter { !$0.1.holds && $0.0.handledBy == nil }.count
        let skipped = single.filter { $0.status == .skipped || $0.status == .cancelled }.count
        let counts = "tests=\"\(tests)\" failures=\"\(failures)\" errors=\"0\" skipped=\"\(skipped)\" time=\"\(seconds(result.duration))\""
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites name=\(attribute(result.workflow)) \(counts)>\n"
        xml += "  <testsuite name=\(attribute(result.workflow)) \(counts) timestamp=\(attribute(ReportTime.iso8601(result.startedAt)))>\n"
        for record in single {
            xml += testcase(record, workflow: result.workflow)
        }
        for label in repeated {
            xml += testcase(label, workflow: result.workflow)
        }
        for failure in extra {
            var time = "0.000"
            if case .group(let group) = failure.source { time = group.duration.map(seconds) ?? time }
            if case .run = failure.source { time = seconds(result.duration) }
            xml += "    <testcase name=\(attribute(failure.id)) classname=\(attribute("\(result.workflow).\(failure.kind)")) time=\"\(time)\">\n"
            if let handler = failure.handledBy {
                xml += "      <system-err>" + escape(handledText(failure.failureKind, failure.message, by: handler)) + "</system-err>\n"
            } else {
                xml += "      <failure message=\(attribute(failure.message)) type=\(attribute(failure.failureKind.rawValue))>"
                xml += escape(failure.message) + "</failure>\n"
            }
            xml += "    </testcase>\n"
        }
        for (group, threshold) in thresholds {
            let name = attribute(threshold.threshold.text)
            xml +=
                "    <testcase name=\(name) classname=\(attribute("\(result.workflow).\(group.id)")) time=\"\(group.duration.map(seconds) ?? "0.000")\">\n"
            if threshold.holds {
                xml += "      <system-out>" + escape(threshold.message) + "</system-out>\n"
            } else if let handler = group.handledBy {
                xml += "      <system-err>" + escape(handledText(.expect, threshold.message, by: handler)) + "</system-err>\n"
            } else {
                xml += "      <failure message=\(attribute(threshold.message)) type=\"expect\">" + escape(threshold.message) + "</failure>\n"
            }
            xml += "    </testcase>\n"
        }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }

    private static func testcase(_ record: StepRecord, workflow: String) -> String {
        let time = record.duration.map(seconds) ?? "0.000"
        let xml = "    <testcase name=\(attribute(record.id)) classname=\(attribute("\(workflow).\(record.kind)")) time=\"\(time)\""
        var body = ""
        var handled: String?
        switch record.status {
        case .failed where record.handledBy != nil:
            handled = handledText(record.failure?.kind ?? .fail, record.failure?.message ?? "failed", by: record.handledBy ?? "")
        case .failed:
            let failure = record.failure
            body += "      <failure message=\(attribute(failure?.message ?? "failed")) type=\(attribute(failure?.kind.rawValue ?? "fail"))>"
            var details = "\(record.summary)\n\(failure?.message ?? "")"
            if let tail = record.outputTail { details += "\n--- last lines of stderr ---\n" + tail }
            body += escape(details) + "</failure>\n"
        case .skipped, .cancelled, .pending, .running:
            let reason = record.status == .skipped && record.kind != "log" ? record.message : nil
            body += "      <skipped message=\(attribute(reason ?? record.status.rawValue))/>\n"
        case .succeeded, .upToDate:
            break
        }
        var out = ""
        // Where it ran: JUnit has no per-test properties that
        // every reader accepts, so it is a line of the test's output.
        if record.executor == .slurm {
            out += "ran on Slurm" + (record.slurmJob.map { ", job \($0)" } ?? "") + "\n"
        }
        if record.status == .upToDate {
            out +=
                record.upToDateFrom == .cache
                ? "up-to-date: not run; restored from the shared cache (its key was stored by an earlier run)\n"
                : "up-to-date: not run; its sources and command are as in its last successful run\n"
        }
        if let message = record.message, record.status != .skipped { out += message + "\n" }
        if let stdout = record.standardOutput?.text { out += stdout }
        if !record.attemptLog.isEmpty {
            if !out.isEmpty, !out.hasSuffix("\n") { out += "\n" }
            out += ReportText.attempts(record.attemptLog)
        }
        if !out.isEmpty { body += "      <system-out>\(escape(out))</system-out>\n" }
        var err = handled ?? ""
        if let stderr = record.standardError?.text, !stderr.isEmpty {
            err += stderr
        } else if handled != nil, let tail = record.outputTail {
            err += "--- last lines of stderr ---\n" + tail + "\n"
        }
        if !err.isEmpty { body += "      <system-err>\(escape(err))</system-err>\n" }
        if body.isEmpty { return xml + "/>\n" }
        return xml + ">\n" + body + "    </testcase>\n"
    }

    /// A repeated label's one test case: its count in `system-out`, a
    /// `<failure>` with its first failures only when they failed the run.
    private static func testcase(_ label: RepeatedLabel, workflow: String) -> String {
        let stats = label.stats
        var xml =
            "    <testcase name=\(attribute(label.stats.label)) classname=\(attribute("\(workflow).\(label.kind)")) "
            + "time=\"\(seconds(label.time))\">\n"
        let summary = "\(stats.count) runs: \(stats.succeeded) succeeded, \(stats.failed) failed"
        let failures = label.unhandledFailures
        if !failures.isEmpty {
            let first = failures.prefix(10).map { "\($0.id): \($0.failure?.message ?? "failed")" }.joined(separator: "\n")
            let message = "\(stats.failed) of \(stats.count) runs failed"
            xml +=
                "      <failure message=\(attribute(message)) type=\(attribute(failures[0].failure?.kind.rawValue ?? "fail"))>"
                + escape(summary + "\n" + first) + "</failure>\n"
        } else {
            xml += "      <system-out>" + escape(summary + "\n") + "</system-out>\n"
        }
        return xml + "    </testcase>\n"
    }

    /// What a passing test case of a handled failure says first in
    /// `system-err`.
    private static func handledText(_ kind: FailureKind, _ message: String, by handler: String) -> String {
        "failed (\(kind.rawValue)): \(message)\nhandled by \(handler): not a failure of the run\n"
    }

    private static func seconds(_ duration: Duration) -> String {
        duration.secondsText
    }

    /// An XML attribute's value, quotes included: as `escape`, and `"`,
    /// LF and tab as references too (a parser turns them raw into spaces).
    static func attribute(_ text: String) -> String {
        "\""
            + escape(text).replacingScalars { scalar in
                switch scalar {
                case "\"": "&quot;"
                case "\n": "&#10;"
                case "\t": "&#9;"
                default: nil
                }
            } + "\""
    }

    /// XML text: markup characters escaped, a CR as `&#13;` (a parser
    /// would read a raw one as part of a line break), characters XML 1.0
    /// forbids shown escaped (`\e`, `\x07`), U+FFFE and U+FFFF dropped.
    static func escape(_ text: String) -> String {
        text.replacingScalars { scalar in
            switch scalar {
            case "&": "&amp;"
            case "<": "&lt;"
            case ">": "&gt;"
            case "\r": "&#13;"
            case "\t", "\n": nil
            case _ where scalar.value < 0x20: ControlCharacters.escape(scalar)
            case _ where (0xFFFE...0xFFFF).contains(scalar.value): ""
            default: nil
            }
        }
    }
}

/// Texts several reports share.
enum ReportText {
    /// One line per attempt: `attempt 1: failed after 0.21 s (exit 1): message`.
    static func attempts(_ attempts: [AttemptRecord]) -> String {
        var text = ""
        for attempt in attempts {
            text += "attempt \(attempt.number): \(attempt.status.rawValue) after \(Format.duration(attempt.duration))"
            if let exit = attempt.exitCode { text += " (exit \(exit))" }
            if let status = attempt.httpStatus { text += " (HTTP \(status))" }
            if let failure = attempt.failure { text += ": \(failure.kind.rawValue): \(failure.message)" }
            if let wait = attempt.retryAfter { text += "; waited \(Format.duration(wait)) as its Retry-After asked" }
            text += "\n"
            if let tail = attempt.outputTail {
                for line in tail.split(separator: "\n", omittingEmptySubsequences: false) { text += "    \(line)\n" }
            }
        }
        return text
    }
}

/// The records of a label that ran more than once, as one (a JUnit test
/// case).
/// See docs/language.md, 'Load'.
struct RepeatedLabel {
    var stats: LabelStats
    var records: [StepRecord]

    /// The step kind of its runs.
    var kind: String { records.first?.kind ?? "step" }
    /// The time its kept runs took, added up.
    var time: Duration { records.compactMap(\.duration).reduce(.zero, +) }
    /// Its kept runs that failed the run.
    var unhandledFailures: [StepRecord] { records.filter { $0.status == .failed && $0.handledBy == nil } }

    /// The records of labels that ran once, in order, and the repeated
    /// labels, each where its first record was.
    static func split(_ records: [StepRecord], stats: [LabelStats]) -> (single: [StepRecord], repeated: [RepeatedLabel]) {
        let byLabel = Dictionary(stats.map { ($0.label, $0) }, uniquingKeysWith: { first, _ in first })
        var single: [StepRecord] = []
        var repeated: [RepeatedLabel] = []
        var index: [String: Int] = [:]
        for record in records {
            guard let key = LabelStats.key(of: record.id), let stats = byLabel[key] else {
                single.append(record)
                continue
            }
            if let at = index[key] {
                repeated[at].records.append(record)
            } else {
                index[key] = repeated.count
                repeated.append(RepeatedLabel(stats: stats, records: [record]))
            }
        }
        return (single, repeated)
    }
}
