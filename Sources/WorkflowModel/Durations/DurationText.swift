import PromiseEngine

/// Durations as workflows write them: `1m30s`, `250ms`.
package enum DurationText {
    /// Parses `250ms`, `30s`, `5m`, `1h`, `1m30s`, and decimals (`1.5s`,
    /// `0.25ms`): `(\d+(\.\d+)?(ms|s|m|h))+`; nil when
    /// malformed or absurdly long.
    package static func parse(_ word: String) -> Duration? {
        var total: Duration = .zero
        var number = 0
        var digits = 0
        /// After a decimal point: its digits, and 10 to their count.
        var fraction: (value: Int, scale: Int)?
        var sawUnit = false
        let utf8 = Array(word.utf8)
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            if ASCIIByte.isDigit(byte) {
                if var part = fraction {
                    guard part.scale < 1_000_000_000 else { return nil }
                    part.value = part.value * 10 + Int(byte - 0x30)
                    part.scale *= 10
                    fraction = part
                } else {
                    digits += 1
                    guard digits <= 9 else { return nil }
                    number = number * 10 + Int(byte - 0x30)
                }
                index += 1
                continue
            }
            guard digits > 0, fraction?.scale != 1 else { return nil }
            if byte == UInt8(ascii: "."), fraction == nil {
                fraction = (0, 1)
                index += 1
                continue
            }
            let unit: Duration
            if byte == UInt8(ascii: "m"), index + 1 < utf8.count, utf8[index + 1] == UInt8(ascii: "s") {
                unit = .milliseconds(1)
                index += 2
            } else if byte == UInt8(ascii: "s") {
                unit = .seconds(1)
                index += 1
            } else if byte == UInt8(ascii: "m") {
                unit = .seconds(60)
                index += 1
            } else if byte == UInt8(ascii: "h") {
                unit = .seconds(3600)
                index += 1
            } else {
                return nil
            }
            total += unit * number
            if let fraction { total += unit * fraction.value / fraction.scale }
            number = 0
            digits = 0
            fraction = nil
            sawUnit = true
        }
        return sawUnit && digits == 0 && fraction == nil ? total : nil
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
