import Glibc
package import JSON
import PromiseEngine
import WorkflowModel
package import WorkflowRun

/// `--report json=PATH`: the run and every step, for machines. The schema
/// is documented in docs/reports.md.
package enum JSONReport {
    /// The run as the JSON report (docs/reports.md).
    package static func render(_ result: RunResult) -> String {
        var members: [(String, JSONValue)] = [
            ("workflow", .string(result.workflow)),
            ("status", .string(result.status.reported)),
            ("startedAt", .string(ReportTime.iso8601(result.startedAt))),
            ("durationSeconds", .decimal(result.duration.seconds, places: 3)),
        ]
        if let error = result.error {
            members.append(
                (
                    "error",
                    .object([
                        ("step", .string(error.stepID)),
                        ("kind", .string(error.kind.rawValue)),
                        ("message", .string(error.message)),
                    ])
                ))
        }
        members.append(("steps", .array(result.records.map(step))))
        members.append(("groups", .array(result.groups.map(group))))
        if result.omitted.count > 0 {
            // Runs of a label past its first 1,000 are counted, not listed.
            members.append(
                (
                    "stepsNotListed",
                    .object(
                        result.omitted.byStatus.sorted { $0.key.rawValue < $1.key.rawValue }
                            .map { ($0.key.rawValue, .integer($0.value)) })
                ))
        }
        if !result.stats.isEmpty {
            members.append(("stats", .object(result.stats.map { ($0.label, stats($0)) })))
        }
        return JSONValue.object(members).rendered() + "\n"
    }

    /// A label's statistics: latencies in seconds.
    static func stats(_ stats: LabelStats) -> JSONValue {
        func seconds(_ microseconds: Int64) -> JSONValue { .decimal(Double(microseconds) / 1_000_000, places: 6) }
        let latency = stats.latency
        var members: [(String, JSONValue)] = [
            ("count", .integer(stats.count)), ("succeeded", .integer(stats.succeeded)), ("failed", .integer(stats.failed)),
            (
                "failedByKind",
                .object(
                    stats.failedByKind.sorted { $0.key.rawValue < $1.key.rawValue }
                        .map { ($0.key.rawValue, .integer($0.value)) })
            ),
        ]
        if !stats.statuses.isEmpty {
            members.append(("statuses", .object(stats.statuses.sorted { $0.key < $1.key }.map { (String($0.key), .integer($0.value)) })))
        }
        members.append(("ratePerSecond", .decimal(stats.ratePerSecond, places: 3)))
        members.append(
            (
                "latency",
                .object([
                    ("min", seconds(latency.minimum == .max ? 0 : latency.minimum)), ("mean", .decimal(latency.mean / 1_000_000, places: 6)),
                    ("p50", seconds(latency.percentile(50))), ("p90", seconds(latency.percentile(90))),
                    ("p95", seconds(latency.percentile(95))), ("p99", seconds(latency.percentile(99))),
                    ("p999", seconds(latency.percentile(99.9))), ("max", seconds(latency.maximum)),
                ])
            ))
        if let lateness = stats.lateness {
            // Runs started on a rate's schedule: how late they started.
            members.append(
                (
                    "lateness",
                    .object([
                        ("p50", seconds(lateness.percentile(50))), ("p99", seconds(lateness.percentile(99))), ("max", seconds(lateness.maximum)),
                    ])
                ))
        }
        // Over time: a point a second (or, past 600, a point
        // every `secondsPerPoint`), from the label's first end.
        let series = stats.series
        members.append(
            (
                "series",
                .object([
                    ("secondsPerPoint", .decimal(series.width, places: 0)),
                    (
                        "points",
                        .array(
                            series.points.enumerated().map { index, point in
                                .object([
                                    ("t", .decimal(Double(index) * series.width, places: 0)), ("completions", .integer(point.completions)),
                                    ("failures", .integer(point.failures)),
                                    ("p50", point.completions == 0 ? .null : seconds(point.latency.percentile(50))),
                                    ("p99", point.completions == 0 ? .null : seconds(point.latency.percentile(99))),
                                ])
                            })
                    ),
                ])
            ))
        return .object(members)
    }

    private static func group(_ record: GroupRecord) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("id", .string(record.id)),
            ("label", record.label.map(JSONValue.string) ?? .null),
            ("kind", .string(record.kind)),
            ("parent", record.parent.map(JSONValue.string) ?? .null),
            ("status", .string(record.status.rawValue)),
            ("attempts", .integer(record.attempts)),
            ("startedAt", record.startedAt.map { .string(ReportTime.iso8601($0)) } ?? .null),
            ("durationSeconds", record.duration.map { .decimal($0.seconds, places: 3) } ?? .null),
        ]
        if let failure = record.failure {
            members.append(("error", .object([("kind", .string(failure.kind.rawValue)), ("message", .string(failure.message))])))
        }
        if record.allowedFailure { members.append(("allowedFailure", .bool(true))) }
        if let handler = record.handledBy { members.append(("handledBy", .string(handler))) }
        if !record.thresholds.isEmpty { members.append(("thresholds", .array(record.thresholds.map(threshold)))) }
        return .object(members)
    }

    /// A threshold as checked: as written, whether it held, and
    /// the measured value in its unit (seconds, a share from 0 to 1, a
    /// count, per second; null when nothing ended to measure).
    package static func threshold(_ result: ThresholdResult) -> JSONValue {
        .object([
            ("threshold", .string(result.threshold.text)),
            ("held", .bool(result.holds)),
            ("measured", result.measured.map { .decimal($0, places: 6) } ?? .null),
            ("message", .string(result.message)),
        ])
    }

    private static func output(_ text: CapturedText) -> JSONValue {
        .object([
            ("tail", .string(text.text)),
            ("bytes", .integer(text.totalBytes)),
            ("truncated", .bool(text.truncated)),
        ])
    }

    private static func attempt(_ attempt: AttemptRecord) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("number", .integer(attempt.number)),
            ("startedAt", .string(ReportTime.iso8601(attempt.startedAt))),
            ("durationSeconds", .decimal(attempt.duration.seconds, places: 3)),
            ("status", .string(attempt.status.rawValue)),
        ]
        if let exit = attempt.exitCode { members.append(("exit", .integer(exit))) }
        if let status = attempt.httpStatus { members.append(("httpStatus", .integer(status))) }
        if let wait = attempt.retryAfter { members.append(("retryAfterSeconds", .decimal(wait.seconds, places: 3))) }
        if let failure = attempt.failure {
            var error: [(String, JSONValue)] = [("kind", .string(failure.kind.rawValue)), ("message", .string(failure.message))]
            if let tail = attempt.outputTail { error.append(("stderrTail", .string(tail))) }
            members.append(("error", .object(error)))
        }
        return .object(members)
    }

    private static func step(_ record: StepRecord) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("id", .string(record.id)),
            ("label", record.label.map(JSONValue.string) ?? .null),
            ("kind", .string(record.kind)),
            ("summary", .string(record.summary)),
            ("status", .string(record.status.rawValue)),
            ("attempts", .integer(record.attempts)),
            ("startedAt", record.startedAt.map { .string(ReportTime.iso8601($0)) } ?? .null),
            ("durationSeconds", record.duration.map { .decimal($0.seconds, places: 3) } ?? .null),
            ("group", record.group.map(JSONValue.string) ?? .null),
        ]
        if let message = record.message { members.append(("message", .string(message))) }
        if record.allowedFailure { members.append(("allowedFailure", .bool(true))) }
        if let handler = record.handledBy { members.append(("handledBy", .string(handler))) }
        if let exit = record.exitCode { members.append(("exit", .integer(exit))) }
        if let executor = record.executor { members.append(("executor", .string(executor.rawValue))) }
        if let job = record.slurmJob { members.append(("slurmJob", .string(job))) }
        if let source = record.upToDateFrom { members.append(("from", .string(source.rawValue))) }
        if let status = record.httpStatus { members.append(("httpStatus", .integer(status))) }
        if let http = record.http {
            members.append(("url", .string(http.url)))
            members.append(("redirects", .integer(http.redirects)))
            members.append(("version", .string(http.version)))
            members.append(
                (
                    "timings",
                    .object(
                        HTTPTimingPhase.allCases.map { phase in
                            (phase.rawValue, .decimal(http.timings[phase].seconds, places: 6))
                        })
                ))
        }
        if let failure = record.failure {
            var error: [(String, JSONValue)] = [("kind", .string(failure.kind.rawValue)), ("message", .string(failure.message))]
            if let tail = record.outputTail { error.append(("stderrTail", .string(tail))) }
            members.append(("error", .object(error)))
        }
        if record.standardOutput != nil || record.standardError != nil {
            var streams: [(String, JSONValue)] = []
            if let stdout = record.standardOutput { streams.append(("stdout", output(stdout))) }
            if let stderr = record.standardError { streams.append(("stderr", output(stderr))) }
            members.append(("output", .object(streams)))
        }
        if !record.attemptLog.isEmpty {
            members.append(("attemptLog", .array(record.attemptLog.map(attempt))))
        }
        return .object(members)
    }
}

/// Times in reports.
package enum ReportTime {
    /// `seconds` since 1970 as UTC to the millisecond: `2026-11-27T23:05:01.250Z`.
    package static func iso8601(_ seconds: Double) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        appendISO8601(seconds, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `iso8601(seconds)`'s text.
    package static func appendISO8601(_ seconds: Double, to bytes: inout [UInt8]) {
        var milliseconds = Int((seconds * 1000).rounded())
        var whole = time_t(milliseconds / 1000)
        milliseconds %= 1000
        if milliseconds < 0 {
            milliseconds += 1000
            whole -= 1
        }
        var parts = tm()
        gmtime_r(&whole, &parts)
        func digits(_ value: Int, _ count: Int, then separator: UInt8?) {
            var divisor = 1
            for _ in 1..<count { divisor *= 10 }
            var rest = value
            if count == 4, value >= 10_000 {
                JSONText.appendInteger(value, to: &bytes)
            } else {
                while divisor > 0 {
                    bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor % 10))
                    rest %= divisor
                    divisor /= 10
                }
            }
            if let separator { bytes.append(separator) }
        }
        digits(Int(parts.tm_year) + 1900, 4, then: UInt8(ascii: "-"))
        digits(Int(parts.tm_mon) + 1, 2, then: UInt8(ascii: "-"))
        digits(Int(parts.tm_mday), 2, then: UInt8(ascii: "T"))
        digits(Int(parts.tm_hour), 2, then: UInt8(ascii: ":"))
        digits(Int(parts.tm_min), 2, then: UInt8(ascii: ":"))
        digits(Int(parts.tm_sec), 2, then: UInt8(ascii: "."))
        digits(milliseconds, 3, then: UInt8(ascii: "Z"))
    }
}
