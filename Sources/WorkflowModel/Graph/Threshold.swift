/// `expect latency p99 < 250ms`, `expect failures < 1%`, `expect rate >=
/// 490/s`, `expect lateness p99 < 5ms`: an expectation on the statistics of a group's steps, checked
/// when the group ends.
/// See docs/language.md, 'Load'.
package struct Threshold: Sendable, Hashable {
    /// What is measured.
    package enum Measure: Sendable, Hashable {
        /// A statistic of the latencies, in seconds.
        case latency(LatencyStatistic)
        /// A statistic of the lateness of the steps that start iterations
        /// on a `rate`'s schedule, in seconds.
        case lateness(LatencyStatistic)
        /// Failed runs as a share of the runs that ended (0 to 1).
        case failureShare
        /// Failed runs.
        case failureCount
        /// Runs completed per second over the group's time.
        case rate
    }

    /// The statistics of latency a threshold can bound, by the word
    /// written after `latency`: `min`, `mean`, `max`, or any percentile
    /// from `p0.1` to `p99.99` with at most two decimals.
    package enum LatencyStatistic: Sendable, Hashable {
        case min, mean, max
        /// `pN`, in hundredths of a percent (9999 for `p99.99`).
        case percentile(hundredths: Int)

        /// The words offered when one is misspelled.
        package static let examples = ["min", "mean", "p50", "p90", "p95", "p99", "p99.9", "max"]

        /// Reads `min`, `mean`, `max` or `pN` (`p97.5`); nil for anything
        /// else, a third decimal or a percentile outside 0.1 to 99.99.
        package init?(word: String) {
            switch word {
            case "min": self = .min
            case "mean": self = .mean
            case "max": self = .max
            default:
                guard word.hasPrefix("p") else { return nil }
                let number = word.dropFirst()
                let parts = number.split(separator: ".", omittingEmptySubsequences: false)
                guard (1...2).contains(parts.count), let whole = Int(parts[0]), parts[0].allSatisfy(\.isASCII) else { return nil }
                var hundredths = whole * 100
                if parts.count == 2 {
                    let decimals = parts[1]
                    guard (1...2).contains(decimals.count), decimals.allSatisfy({ $0.isASCII && $0.isNumber }),
                        let value = Int(decimals)
                    else { return nil }
                    hundredths += decimals.count == 1 ? value * 10 : value
                }
                guard (10...9999).contains(hundredths) else { return nil }
                self = .percentile(hundredths: hundredths)
            }
        }

        /// As written: `p99.9`, `p50`, `min`.
        package var word: String {
            switch self {
            case .min: return "min"
            case .mean: return "mean"
            case .max: return "max"
            case .percentile(let hundredths):
                let fraction = hundredths % 100
                guard fraction != 0 else { return "p\(hundredths / 100)" }
                return "p\(hundredths / 100)." + (fraction % 10 == 0 ? "\(fraction / 10)" : (fraction < 10 ? "0" : "") + "\(fraction)")
            }
        }

        /// The percentile, for the percentiles (50 for p50).
        package var percentile: Double? {
            if case .percentile(let hundredths) = self { return Double(hundredths) / 100 }
            return nil
        }
    }

    package var measure: Measure
    /// `of LABEL`: over that label's runs only; nil: every step in the group.
    package var label: String?
    package var comparison: ComparisonOperator
    /// Seconds for latency, a share (0.01 for 1%) or a count for failures,
    /// per second for rate.
    package var bound: Double
    /// As written after `expect`, in one canonical spacing:
    /// `latency of api p50 <= 20ms` (JUnit names its test case so).
    package var text: String

    package init(measure: Measure, label: String? = nil, comparison: ComparisonOperator, bound: Double, text: String) {
        self.measure = measure
        self.label = label
        self.comparison = comparison
        self.bound = bound
        self.text = text
    }

    /// Whether a failures threshold: the group then runs as with
    /// keep-going and the threshold decides.
    package var countsFailures: Bool {
        switch measure {
        case .failureShare, .failureCount: return true
        case .latency, .lateness, .rate: return false
        }
    }

    /// Whether the measured value keeps within the bound.
    package func holds(_ value: Double) -> Bool {
        switch comparison {
        case .less: return value < bound
        case .lessOrEqual: return value <= bound
        case .greater: return value > bound
        case .greaterOrEqual: return value >= bound
        case .equal: return value == bound
        case .notEqual: return value != bound
        }
    }
}
