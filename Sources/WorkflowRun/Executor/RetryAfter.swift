import RunnerSystem
import WorkflowModel

/// `Retry-After` (RFC 9110 §10.2.3) on a 429 or 503 answer to an http step
/// with `retry`: the wait before the next attempt, instead of
/// its `delay`, capped by the step's timeout and by `longest`.
/// See docs/language.md, 'Load'.
enum RetryAfter {
    /// The longest wait a server's `Retry-After` gets, whatever it asks
    /// (a step without a timeout would otherwise stall for good on
    /// `99999999999999` or a date in 9999).
    static let longest: Duration = .seconds(600)

    /// The wait before the next attempt, and whether it is shorter than
    /// the server asked.
    struct Wait: Equatable {
        var duration: Duration
        var capped: Bool
    }

    /// The wait a failed attempt asks for, at most `cap` and `longest`;
    /// nil when it asks for none (not an http failure, another status, no
    /// or a malformed header).
    static func wait(after error: any Error, cap: Duration?, now: Double) -> Wait? {
        guard let failure = error as? StepFailure, let result = failure.result,
            let status = result.status, status == 429 || status == 503,
            let header = result.headers.values(named: "retry-after").last,
            let asked = parse(header, now: now)
        else { return nil }
        let allowed = min(cap ?? longest, longest)
        return asked > allowed ? Wait(duration: allowed, capped: true) : Wait(duration: asked, capped: false)
    }

    /// Seconds (`120`) or an HTTP date (`Wed, 21 Oct 2015 07:28:00 GMT`,
    /// also the obsolete RFC 850 and asctime forms), as a wait from `now`
    /// (seconds since the epoch); a date in the past is no wait.
    static func parse(_ text: String, now: Double) -> Duration? {
        let value = Filter.trimmed(text)
        if !value.isEmpty, value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            guard let seconds = Int(value.prefix(12)) else { return nil }
            return .seconds(seconds)
        }
        guard let date = httpDate(value) else { return nil }
        let wait = date - now
        return wait > 0 ? .milliseconds(Int64((wait * 1000).rounded(.up))) : .zero
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// Seconds since the epoch of an HTTP date in any of its three forms.
    static func httpDate(_ text: String) -> Double? {
        // Words without the weekday and commas: "21 Oct 2015 07:28:00 GMT",
        // "21-Oct-15 07:28:00 GMT", or asctime's "Oct 21 07:28:00 2015".
        var words = text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        guard words.count >= 4 else { return nil }
        words.removeFirst()  // the weekday
        var day: Int?
        var month: Int?
        var year: Int?
        var clock: String?
        if words.count == 4, let monthIndex = months.firstIndex(of: words[0].lowercased()) {
            // asctime: Oct 21 07:28:00 2015
            (month, day, clock, year) = (monthIndex + 1, Int(words[1]), words[2], Int(words[3]))
        } else if words.count >= 3 {
            var dayMonthYear = [words[0]]
            var rest = Array(words.dropFirst())
            if words[0].contains("-") {
                dayMonthYear = words[0].split(separator: "-").map(String.init)
            } else {
                dayMonthYear += rest.prefix(2)
                rest = Array(rest.dropFirst(2))
            }
            guard dayMonthYear.count == 3, let monthIndex = months.firstIndex(of: dayMonthYear[1].lowercased()) else { return nil }
            day = Int(dayMonthYear[0])
            month = monthIndex + 1
            year = Int(dayMonthYear[2]).map { $0 < 100 ? ($0 < 70 ? 2000 + $0 : 1900 + $0) : $0 }
            clock = rest.first
        }
        guard let day, let month, let year, let clock else { return nil }
        let parts = clock.split(separator: ":").compactMap { Int($0) }
        guard parts.count == 3, (1...31).contains(day), (0...23).contains(parts[0]), (0...59).contains(parts[1]),
            (0...60).contains(parts[2])
        else { return nil }
        return Double(RFC3339.daysFromEpoch(year: year, month: month, day: day) * 86_400 + parts[0] * 3600 + parts[1] * 60 + parts[2])
    }
}
