import JSON
import WorkflowModel

/// How times and sizes read in the console and the reports.
package enum Format {
    /// `850ms`, `12.3s`, `2m03s`, `1h02m`.
    package static func duration(_ duration: Duration) -> String {
        seconds(duration.seconds)
    }

    /// Seconds as `duration` shows them.
    package static func seconds(_ value: Double) -> String {
        if value < 1 { return "\(Int((value * 1000).rounded()))ms" }
        if value < 60 {
            let tenths = Int((value * 10).rounded())
            return "\(tenths / 10).\(tenths % 10)s"
        }
        let total = Int(value.rounded())
        if total < 3600 {
            let seconds = total % 60
            return "\(total / 60)m" + (seconds < 10 ? "0" : "") + "\(seconds)s"
        }
        let minutes = (total % 3600) / 60
        return "\(total / 3600)h" + (minutes < 10 ? "0" : "") + "\(minutes)m"
    }

    /// A count with its thousands grouped: `12,000`.
    package static func count(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { text += "," }
            text.append(digit)
        }
        return (value < 0 ? "-" : "") + text
    }

    /// A latency: `0.42ms`, `3.4ms`, `120ms`, then as `seconds`.
    package static func latency(microseconds: Int64) -> String {
        let milliseconds = Double(microseconds) / 1000
        if milliseconds < 1 { return FixedPoint.text(milliseconds, places: 2) + "ms" }
        if milliseconds < 10 { return FixedPoint.text(milliseconds, places: 1) + "ms" }
        return seconds(milliseconds / 1000)
    }

    /// `512 B`, `1.5 KB`, `3.2 MB`, `1.1 GB` (powers of 1024).
    package static func bytes(_ count: Int64) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(count)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(count) B" : "\(Int(value * 10) / 10).\(Int(value * 10) % 10) \(units[unit])"
    }

    /// Text padded with spaces to `width` characters.
    package static func padded(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
