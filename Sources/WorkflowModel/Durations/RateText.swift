/// Rates as the language writes them: `500/s`, `30/m`, `2/h`.
/// See docs/language.md, 'Load'.
package enum RateText {
    /// The units of a rate, with their length in seconds.
    package static let units: [(name: String, seconds: Double)] = [("s", 1), ("m", 60), ("h", 3600)]

    /// The fastest rate a group may have, per second.
    package static let maximum: Double = 10_000_000

    /// Why a rate per second is not one a group may have (nil when it
    /// is): at most `maximum`, above zero (zero when `zeroAllowed`, a
    /// ramp's start or target).
    package static func problem(_ perSecond: Double, zeroAllowed: Bool = false) -> String? {
        if perSecond > maximum { return "a rate is at most \(format(maximum))" }
        if perSecond < 0 || (perSecond == 0 && !zeroAllowed) {
            return zeroAllowed ? "a rate is not negative" : "a rate is above zero ('0/s' only as the start of a 'ramp')"
        }
        return nil
    }

    /// `N/s`, `N/m` or `N/h` (per second, minute, hour): per second; nil
    /// when it is not a rate.
    package static func parse(_ word: some StringProtocol) -> Double? {
        let parts = word.split(separator: "/")
        guard parts.count == 2, let count = Double(parts[0]), count.isFinite,
            let unit = units.first(where: { $0.name == parts[1] })
        else { return nil }
        return count / unit.seconds
    }

    /// A rate per second as written: in the first unit that makes it a
    /// whole number (`500/s`, `30/m`, `2/h`), else per second.
    package static func format(_ perSecond: Double) -> String {
        if perSecond == 0 { return "0/s" }
        for unit in units {
            let count = perSecond * unit.seconds
            if abs(count - count.rounded()) < 1e-9, count >= 1 { return "\(Int(count.rounded()))/\(unit.name)" }
        }
        return "\(perSecond)/s"
    }
}
