import PromiseEngine
import WorkflowEngine

/// How times and sizes read in the console and the reports.
enum Format {
    /// `value` with exactly `places` decimals, rounded half away from zero
    /// (`fixed(2.25, 1)` is `2.3`); what `String(format: "%.Nf")` gives
    /// for the values reports hold.
    static func fixed(_ value: Double, _ places: Int) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9e15 else { return String(value) }
        let units = Int64(scaled)
        let divisor = Int64(scale)
        let sign = value < 0 && units != 0 ? "-" : ""
        guard places > 0 else { return sign + String(units) }
        let fraction = String(units % divisor)
        return sign + String(units / divisor) + "." + String(repeating: "0", count: places - fraction.count) + fraction
    }

    /// `850ms`, `12.3s`, `2m03s`, `1h02m`.
    static func duration(_ duration: Duration) -> String {
        seconds(duration.seconds)
    }

    static func seconds(_ value: Double) -> String {
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

    /// `512 B`, `1.5 KB`, `3.2 MB`, `1.1 GB` (powers of 1024).
    static func bytes(_ count: Int64) -> String {
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
    static func padded(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
