/// Rates as the language writes them: `500/s`, `30/m`, `2/h`.
/// See docs/language.md, 'Load'.
package enum RateText {
    /// The units of a rate, with their length in seconds.
    package static let units: [(name: String, seconds: Double)] = [("s", 1), ("m", 60), ("h", 3600)]

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
