/// A label's statistics over time: per second, how many runs
/// ended and failed, and their latencies (a coarse histogram: within 3%);
/// at most 600 points, a longer run merging neighbouring points (each then
/// covers 2, 4, ... seconds). Memory stays under a megabyte a label.
/// See docs/language.md, 'Load'.
package struct LabelSeries: Sendable {
    /// One point: the runs that ended in its span.
    package struct Point: Sendable {
        package var completions = 0
        package var failures = 0
        package var latency = LatencyHistogram(coarse: true)
    }

    /// The most points a series holds.
    package static let maximumPoints = 600

    /// Wall clock (seconds since the epoch) where the first point starts.
    package private(set) var origin: Double?
    /// Seconds each point covers.
    package private(set) var width: Double = 1
    package private(set) var points: [Point] = []

    /// A run ended at `end` (seconds since the epoch).
    mutating func add(end: Double, failed: Bool, latency: Duration) {
        let origin = self.origin ?? end
        self.origin = origin
        var index = max(0, Int((end - origin) / width))
        while index >= Self.maximumPoints {
            mergeNeighbours()
            index = max(0, Int((end - origin) / width))
        }
        if index >= points.count { points.append(contentsOf: repeatElement(Point(), count: index + 1 - points.count)) }
        points[index].completions += 1
        if failed { points[index].failures += 1 }
        points[index].latency.record(latency)
    }

    /// Halves the points: each new one holds two neighbours.
    private mutating func mergeNeighbours() {
        var merged: [Point] = []
        merged.reserveCapacity(points.count / 2 + 1)
        for start in stride(from: 0, to: points.count, by: 2) {
            var point = points[start]
            if start + 1 < points.count {
                let next = points[start + 1]
                point.completions += next.completions
                point.failures += next.failures
                point.latency.merge(next.latency)
            }
            merged.append(point)
        }
        points = merged
        width *= 2
    }
}
