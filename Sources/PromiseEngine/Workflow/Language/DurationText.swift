import PromiseEngine

/// Durations as workflows write them: `1m30s`, `250ms`.
package enum DurationText {
    /// Parses `250ms`, `30s`, `5m`, `1h`, `1m30s`; nil when malformed.
    package static func parse(_ text: String) -> Duration? {
        Parser.duration(text)
    }

    package static func format(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        var milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        if milliseconds == 0 { return "0s" }
        var text = ""
        if milliseconds < 0 {
            text = "-"
            milliseconds = -milliseconds
        }
        let hours = milliseconds / 3_600_000
        let minutes = milliseconds / 60_000 % 60
        let wholeSeconds = milliseconds / 1000 % 60
        let rest = milliseconds % 1000
        if hours > 0 { text += "\(hours)h" }
        if minutes > 0 { text += "\(minutes)m" }
        if wholeSeconds > 0 { text += "\(wholeSeconds)s" }
        if rest > 0 { text += "\(rest)ms" }
        return text
    }
}
