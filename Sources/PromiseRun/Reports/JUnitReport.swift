import PromiseEngine

/// `--report junit=PATH`: one `<testcase>` per step, so CI systems show the
/// steps as tests. Failed steps have `<failure>`; skipped and cancelled
/// ones `<skipped>` (with a message saying which).
enum JUnitReport {
    static func render(_ result: RunResult) -> String {
        let records = result.records
        let failures = records.filter { $0.status == .failed }.count
        let skipped = records.filter { $0.status == .skipped || $0.status == .cancelled }.count
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites name=\(attribute(result.workflow)) tests=\"\(records.count)\" failures=\"\(failures)\" errors=\"0\" skipped=\"\(skipped)\" time=\"\(seconds(result.duration))\">\n"
        xml += "  <testsuite name=\(attribute(result.workflow)) tests=\"\(records.count)\" failures=\"\(failures)\" errors=\"0\" skipped=\"\(skipped)\" time=\"\(seconds(result.duration))\" timestamp=\(attribute(ReportTime.iso8601(result.startedAt)))>\n"
        for record in records {
            let time = record.duration.map(seconds) ?? "0.000"
            xml += "    <testcase name=\(attribute(record.id)) classname=\(attribute("\(result.workflow).\(record.kind)")) time=\"\(time)\""
            switch record.status {
            case .failed:
                let failure = record.failure
                xml += ">\n      <failure message=\(attribute(failure?.message ?? "failed")) type=\(attribute(failure?.kind.rawValue ?? "fail"))>"
                var details = "\(record.summary)\n\(failure?.message ?? "")"
                if let tail = record.outputTail { details += "\n--- last lines of stderr ---\n" + tail }
                xml += escape(details) + "</failure>\n"
                xml += "      <system-out>\(escape("attempts: \(record.attempts)"))</system-out>\n    </testcase>\n"
            case .skipped, .cancelled, .pending, .running:
                xml += ">\n      <skipped message=\(attribute(record.status.rawValue))/>\n    </testcase>\n"
            case .succeeded:
                xml += "/>\n"
            }
        }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }

    private static func seconds(_ duration: Duration) -> String {
        duration.secondsText
    }

    static func attribute(_ text: String) -> String {
        "\"" + escape(text).replacing("\"", with: "&quot;") + "\""
    }

    /// XML text: markup characters escaped, characters XML 1.0 forbids dropped.
    static func escape(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\t", "\n", "\r": escaped.unicodeScalars.append(scalar)
            default:
                if scalar.value >= 0x20 && !(0xFFFE...0xFFFF).contains(scalar.value) {
                    escaped.unicodeScalars.append(scalar)
                }
            }
        }
        return escaped
    }
}

