/// `rate START ramp TARGET in DURATION, TARGET in DURATION, ...`: a rate
/// that changes in stages. Within each stage the rate moves linearly from
/// where it was to the target; iteration k (from 0) is due when the
/// integral of the rate reaches k (k6's ramping-arrival-rate).
/// See docs/language.md, 'Load'.
package struct RateRamp: Sendable, Hashable {
    /// One stage: the rate it ends at, per second, and how long it lasts.
    package struct Stage: Sendable, Hashable {
        package var target: Double
        package var duration: Duration

        package init(target: Double, duration: Duration) {
            self.target = target
            self.duration = duration
        }
    }

    /// The rate at the start, per second.
    package var start: Double
    package var stages: [Stage]
    /// A `repeat` with no count or `for`: it ends with its last stage.
    package var endsTheGroup: Bool

    package init(start: Double, stages: [Stage], endsTheGroup: Bool = false) {
        self.start = start
        self.stages = stages
        self.endsTheGroup = endsTheGroup
    }

    /// The stages' durations added up: the planned duration.
    package var total: Duration { stages.reduce(.zero) { $0 + $1.duration } }

    /// The highest rate of the schedule, per second.
    package var peak: Double { stages.reduce(start) { max($0, $1.target) } }

    /// The iterations due before `end` (the end of the last stage by
    /// default): each k with due(k) < end.
    package func iterations(within end: Duration? = nil) -> Int {
        let area = integral(upTo: (end ?? total).seconds)
        return area <= 0 ? 0 : Int((area - 1e-9).rounded(.up))
    }

    /// The integral of the rate from the start to `seconds`: how many
    /// iterations are due by then. Past the last stage the rate stays at
    /// its last target.
    package func integral(upTo seconds: Double) -> Double {
        var from = start
        var elapsed = 0.0
        var area = 0.0
        for stage in stages {
            let length = stage.duration.seconds
            guard length > 0 else {
                from = stage.target
                continue
            }
            if seconds <= elapsed + length {
                let t = seconds - elapsed
                return area + from * t + (stage.target - from) / (2 * length) * t * t
            }
            area += (from + stage.target) / 2 * length
            elapsed += length
            from = stage.target
        }
        return area + from * max(0, seconds - elapsed)
    }

    /// When iteration `index` is due, after the group started: where the
    /// integral reaches `index`. Past the last stage at its last target's
    /// rate; at the end of the last stage when that rate is 0.
    package func due(_ index: Int) -> Duration {
        let wanted = Double(index)
        var from = start
        var elapsed = 0.0
        var area = 0.0
        for stage in stages {
            let length = stage.duration.seconds
            guard length > 0 else {
                from = stage.target
                continue
            }
            let stageArea = (from + stage.target) / 2 * length
            if area + stageArea >= wanted {
                let rest = wanted - area
                let slope = (stage.target - from) / length
                let t: Double
                if abs(slope) < 1e-12 {
                    t = from > 0 ? rest / from : 0
                } else {
                    // from·t + slope/2·t² = rest
                    let root = (from * from + 2 * slope * rest).squareRoot()
                    t = (-from + root) / slope
                }
                return Self.duration(elapsed + min(max(0, t), length))
            }
            area += stageArea
            elapsed += length
            from = stage.target
        }
        return Self.duration(elapsed + (from > 0 ? (wanted - area) / from : 0))
    }

    /// As written: `0/s ramp 500/s in 30s, 0/s in 30s`.
    package var text: String {
        RateText.format(start) + " ramp "
            + stages.map { RateText.format($0.target) + " in " + DurationText.format($0.duration) }.joined(separator: ", ")
    }

    private static func duration(_ seconds: Double) -> Duration {
        .nanoseconds(Int64((seconds * 1e9).rounded()))
    }
}
