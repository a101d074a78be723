import Glibc
import PromiseEngine

/// RFC 3339 times in UTC, written and read: `{{newDate}}`, and the
/// comparisons of a certificate's dates.
/// See docs/steps.md, 'For Hurl users'.
package enum RFC3339 {
    /// `seconds` since the epoch as `2026-01-31T12:00:00.123456Z`
    /// (`fractionDigits` 0: no fraction).
    package static func format(_ seconds: Double, fractionDigits: Int = 6) -> String {
        var whole = time_t(seconds.rounded(.down))
        var parts = tm()
        gmtime_r(&whole, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        var text =
            "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
        if fractionDigits > 0 {
            var scale = 1.0
            for _ in 0..<fractionDigits { scale *= 10 }
            let fraction = min(Int((seconds - Double(whole)) * scale), Int(scale) - 1)
            let digits = String(fraction)
            text += "." + String(repeating: "0", count: fractionDigits - digits.count) + digits
        }
        return text + "Z"
    }

    /// The seconds since the epoch of an RFC 3339 time (`T` or a space
    /// between date and time; `Z` or an offset; a fraction allowed), or
    /// of a date alone (`2030-01-01`, midnight UTC); nil for anything else.
    package static func parse(_ text: String) -> Double? {
        let bytes = Array(text.utf8)
        var index = 0
        func number(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<(index + count)] {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            index += count
            return value
        }
        func expect(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect(UInt8(ascii: "-")), let month = number(2), expect(UInt8(ascii: "-")), let day = number(2),
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        let days = Double(daysFromEpoch(year: year, month: month, day: day))
        if index == bytes.count { return days * 86_400 }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "T") || bytes[index] == UInt8(ascii: "t") || bytes[index] == 0x20 else { return nil }
        index += 1
        guard let hour = number(2), expect(UInt8(ascii: ":")), let minute = number(2), expect(UInt8(ascii: ":")), let second = number(2),
            hour < 24, minute < 60, second <= 60
        else { return nil }
        var seconds = days * 86_400 + Double(hour * 3600 + minute * 60 + second)
        if expect(UInt8(ascii: ".")) {
            var scale = 0.1
            let start = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                seconds += Double(bytes[index] - 0x30) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        if expect(UInt8(ascii: "Z")) || expect(UInt8(ascii: "z")) {
            return index == bytes.count ? seconds : nil
        }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") else { return nil }
        let sign: Double = bytes[index] == UInt8(ascii: "-") ? -1 : 1
        index += 1
        guard let offsetHours = number(2), expect(UInt8(ascii: ":")), let offsetMinutes = number(2), index == bytes.count else { return nil }
        return seconds - sign * Double(offsetHours * 3600 + offsetMinutes * 60)
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar
    /// (H. Hinnant's days_from_civil): the one date arithmetic (cookies'
    /// `Expires`, `Retry-After` dates, certificates, `{{newDate}}`).
    package static func daysFromEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
