import PromiseEngine

extension Duration {
    /// Seconds as a floating-point number.
    package var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// Seconds with millisecond precision, as `{{label.duration}}` and the
    /// reports give them: `1.234`.
    package var secondsText: String {
        let milliseconds = max(0, nanosecondsClamped / 1_000_000)
        let fraction = String(milliseconds % 1000)
        return "\(milliseconds / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
