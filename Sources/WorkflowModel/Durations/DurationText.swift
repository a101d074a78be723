import PromiseEngine

/// Durations as workflows write them: `1m30s`, `250ms`.
package enum DurationText {
    /// Parses `250ms`, `30s`, `5m`, `1h`, `1m30s` (`(\d+(ms|s|m|h))+`); nil
    /// when malformed or absurdly long.
    package static func parse(_ word: String) -> Duration? {
        var total: Duration = .zero
        var number = 0
        var digits = 0
        var sawUnit = false
        let utf8 = Array(word.utf8)
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            if ASCIIByte.isDigit(byte) {
                digits += 1
                guard digits <= 9 else { return nil }
                number = number * 10 + Int(byte - 0x30)
                index += 1
                continue
            }
            guard digits > 0 else { return nil }
            let unit: Duration
            if byte == UInt8(ascii: "m"), index + 1 < utf8.count, utf8[index + 1] == UInt8(ascii: "s") {
                unit = .milliseconds(number)
                index += 2
            } else if byte == UInt8(ascii: "s") {
                unit = .seconds(number)
                index += 1
            } else if byte == UInt8(ascii: "m") {
                unit = .seconds(number * 60)
                index += 1
            } else if byte == UInt8(ascii: "h") {
                unit = .seconds(number * 3600)
                index += 1
            } else {
                return nil
            }
            total += unit
            number = 0
            digits = 0
            sawUnit = true
        }
        return sawUnit && digits == 0 ? total : nil
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
