/// `expect latency p99 < 250ms`, `expect failures < 1%`, `expect rate >=
/// 490/s`: an expectation on the statistics of a group's steps, checked
/// when the group ends (spec §16).
package struct Threshold: Sendable, Hashable {
    /// What is measured.
    package enum Measure: Sendable, Hashable {
        /// A statistic of the latencies, in seconds.
        case latency(LatencyStatistic)
        /// Failed runs as a share of the runs that ended (0 to 1).
        case failureShare
        /// Failed runs.
        case failureCount
        /// Runs completed per second over the group's time.
        case rate
    }

    /// The statistics of latency a threshold can bound, by the word
    /// written after `latency`.
    package enum LatencyStatistic: String, Sendable, Hashable, CaseIterable {
        case min, mean, p50, p90, p95, p99
        case p999 = "p99.9"
        case max

        /// The percentile, for the percentiles (50 for p50).
        package var percentile: Double? {
            switch self {
            case .p50: return 50
            case .p90: return 90
            case .p95: return 95
            case .p99: return 99
            case .p999: return 99.9
            case .min, .mean, .max: return nil
            }
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
    /// keep-going and the threshold decides (spec §16).
    package var countsFailures: Bool {
        switch measure {
        case .failureShare, .failureCount: return true
        case .latency, .rate: return false
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
