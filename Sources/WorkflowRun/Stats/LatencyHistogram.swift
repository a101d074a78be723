/// An HDR-style log-linear histogram of durations in microseconds: exact
/// below 128 µs, then 64 buckets per power of two, so that every value is
/// known within 1/128 (0.8%) of itself. Fixed size (under 20 KB for values
/// up to days), whatever the number of values: a run of millions of
/// requests keeps one per label. Only the buckets from the lowest to the
/// highest one used are kept. The count, sum, minimum and maximum are
/// exact.
///
/// A series' point (one second of a label) keeps a `coarse` one: exact
/// below 32 µs, then 16 buckets per power of two (within 1/32, 3%), about
/// a quarter of the buckets, so that 600 points stay under a megabyte.
package struct LatencyHistogram: Sendable, Equatable {
    /// The buckets from `first` on: `counts[i]` is bucket `first + i`.
    private var counts: [UInt64] = []
    private var first = 0
    /// Sub-bucket bits: 2^bits buckets per power of two (6, or 4 coarse).
    private let bits: Int
    package private(set) var count: UInt64 = 0
    private var sumMicroseconds: Double = 0
    package private(set) var minimum: Int64 = .max
    package private(set) var maximum: Int64 = 0

    /// Within 0.8%; `coarse`: within 3% (a series' point).
    package init(coarse: Bool = false) {
        bits = coarse ? 4 : 6
    }

    /// The bucket of a value (µs, at least 0): the value itself below
    /// 2^(bits+1), then 2^bits buckets per power of two.
    static func bucket(of value: Int64, bits: Int = 6) -> Int {
        let exact = 2 << bits
        let width = 1 << bits
        if value < exact { return Int(value) }
        let msb = 63 - value.leadingZeroBitCount
        let shift = msb - bits
        let top = Int(value >> Int64(shift))  // width..<2 × width
        return exact + (shift - 1) * width + (top - width)
    }

    /// The values a bucket stands for: its lowest and its highest.
    static func range(of bucket: Int, bits: Int = 6) -> (low: Int64, high: Int64) {
        let exact = 2 << bits
        let width = 1 << bits
        if bucket < exact { return (Int64(bucket), Int64(bucket)) }
        let shift = (bucket - exact) / width + 1
        let top = Int64((bucket - exact) % width + width)
        return (top << Int64(shift), ((top + 1) << Int64(shift)) - 1)
    }

    /// Adds one duration.
    package mutating func record(_ duration: Duration) {
        // `components` once: each call divides a 128-bit count.
        let (seconds, attoseconds) = duration.components
        let microseconds = max(0, seconds * 1_000_000 + attoseconds / 1_000_000_000_000)
        record(microseconds: microseconds)
    }

    package mutating func record(microseconds value: Int64) {
        let value = max(0, value)
        let index = Self.bucket(of: value, bits: bits)
        cover(index...index)
        counts[index - first] += 1
        count += 1
        sumMicroseconds += Double(value)
        minimum = min(minimum, value)
        maximum = max(maximum, value)
    }

    /// Adds another histogram's values.
    package mutating func merge(_ other: LatencyHistogram) {
        precondition(bits == other.bits, "a histogram merges one of its own precision")
        if !other.counts.isEmpty { cover(other.first...(other.first + other.counts.count - 1)) }
        for (index, value) in other.counts.enumerated() { counts[other.first + index - first] += value }
        count += other.count
        sumMicroseconds += other.sumMicroseconds
        minimum = min(minimum, other.minimum)
        maximum = max(maximum, other.maximum)
    }

    /// Makes room for the buckets `range` (none of them dropped).
    private mutating func cover(_ range: ClosedRange<Int>) {
        guard !counts.isEmpty else {
            first = range.lowerBound
            counts = Array(repeating: 0, count: range.count)
            return
        }
        if range.lowerBound < first {
            counts.insert(contentsOf: repeatElement(0, count: first - range.lowerBound), at: 0)
            first = range.lowerBound
        }
        let end = first + counts.count
        if range.upperBound >= end { counts.append(contentsOf: repeatElement(0, count: range.upperBound + 1 - end)) }
    }

    /// The mean, in microseconds (0 when empty).
    package var mean: Double { count == 0 ? 0 : sumMicroseconds / Double(count) }

    /// The value at percentile `p` (0...100), in microseconds: the value
    /// below which `p`% of the values lie (nearest rank), within 0.8%; the
    /// exact minimum and maximum at the ends.
    package func percentile(_ p: Double) -> Int64 {
        guard count > 0 else { return 0 }
        // The rank ⌈p/100 × count⌉ in integers (p to a thousandth): in
        // binary floating point 99.9/100 × 1,000 is 999.0000000000001,
        // which rounds up to the maximum.
        let thousandths = UInt64(max(0, min(100_000, (p * 1000).rounded())))
        let product = thousandths.multipliedFullWidth(by: count)
        let (quotient, remainder) = UInt64(100_000).dividingFullWidth(product)
        let rank = max(1, quotient + (remainder > 0 ? 1 : 0))
        if rank >= count { return maximum }
        var seen: UInt64 = 0
        for (index, value) in counts.enumerated() where value > 0 {
            seen += value
            if seen >= rank {
                let (low, high) = Self.range(of: first + index, bits: bits)
                let middle = low + (high - low) / 2
                return min(max(middle, minimum), maximum)
            }
        }
        return maximum
    }

    /// Each non-empty bucket: its lowest value (µs) and its count (the
    /// HTML report draws them).
    package var buckets: [(low: Int64, count: UInt64)] {
        counts.enumerated().compactMap { index, value in value > 0 ? (Self.range(of: first + index, bits: bits).low, value) : nil }
    }
}
