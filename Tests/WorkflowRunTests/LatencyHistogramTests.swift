import Glibc
import PromiseTestSupport
import Testing

@testable import WorkflowRun

/// The latency histogram (percentiles within 1%) against an exact
/// computation over the same values.
/// See docs/language.md, 'Load'.
@Suite("Latency histogram")
struct LatencyHistogramTests {
    /// Nearest-rank percentile of sorted values.
    private func exact(_ sorted: [Int64], _ p: Double) -> Int64 {
        let rank = max(1, (Int((p * 1000).rounded()) * sorted.count + 99_999) / 100_000)
        return sorted[min(sorted.count, rank) - 1]
    }

    @Test(
        "a percentile at a round count is the value of its exact nearest rank (p99.9 of 1,000 is the 999th, not the maximum)",
        arguments: [1, 10, 100, 1_000, 10_000])
    func roundCounts(_ count: Int) {
        for (p, thousandths) in [(50.0, 50_000), (90, 90_000), (95, 95_000), (99, 99_000), (99.9, 99_900), (99.99, 99_990)] {
            // ⌈p/100 × count⌉ in integers: the rank the value must come from.
            let rank = max(1, (thousandths * count + 99_999) / 100_000)
            var histogram = LatencyHistogram()
            for position in 1...count {
                histogram.record(microseconds: position < rank ? 10 : position == rank ? 20 : 100)
            }
            #expect(histogram.percentile(p) == 20, "p\(p) of \(count): rank \(rank)")
        }
    }

    @Test(
        "every percentile within 1% of the exact one (a series' coarse one: 3.2%), over values from microseconds to minutes",
        arguments: [false, true])
    func accuracy(coarse: Bool) {
        let tolerance = coarse ? 0.032 : 0.01
        var generator = SplitMix(state: 42)
        for distribution in 0..<3 {
            var histogram = LatencyHistogram(coarse: coarse)
            var values: [Int64] = []
            for _ in 0..<50_000 {
                let unit = Double(generator.next() % 1_000_000) / 1_000_000
                let value: Int64
                switch distribution {
                case 0: value = Int64(50 + unit * 950)  // 50 µs to 1 ms, flat
                case 1: value = Int64(exp(unit * log(60_000_000.0)))  // 1 µs to a minute, log-flat
                default: value = unit < 0.99 ? Int64(2_000 + unit * 3_000) : Int64(1_000_000 + unit * 100_000)  // a stalled tail
                }
                histogram.record(microseconds: value)
                values.append(value)
            }
            values.sort()
            #expect(histogram.count == 50_000)
            #expect(histogram.minimum == values.first && histogram.maximum == values.last)
            var worst = 0.0
            for p in [1.0, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99] {
                let truth = Double(exact(values, p))
                let measured = Double(histogram.percentile(p))
                #expect(abs(measured - truth) <= max(1, truth * tolerance), "distribution \(distribution), p\(p): \(measured) against \(truth)")
                if truth >= 100 { worst = max(worst, abs(measured - truth) / truth) }
            }
            // The figure Benchmarks/README.md quotes.
            print(
                "latency histogram\(coarse ? " (coarse)" : ""), distribution \(distribution): worst relative error \((worst * 10_000).rounded() / 100)% over 50,000 values"
            )
            let mean = Double(values.reduce(0, +)) / Double(values.count)
            #expect(abs(histogram.mean - mean) < 0.001)
        }
    }

    @Test("buckets: exact below 128 µs, each value inside its bucket, merging adds")
    func buckets() {
        for bits in [6, 4] {
            for value: Int64 in [0, 1, 31, 32, 33, 127, 128, 129, 255, 256, 1_000, 65_535, 1 << 40] {
                let (low, high) = LatencyHistogram.range(of: LatencyHistogram.bucket(of: value, bits: bits), bits: bits)
                #expect(low <= value && value <= high, "\(value) in \(low)...\(high)")
                #expect(Double(high - low) <= Double(max(low, 1)) / Double(1 << bits), "\(value): a bucket of \(low)...\(high)")
            }
            // Buckets are consecutive: each starts where the one before ended.
            for bucket in 1..<(40 << bits) {
                #expect(LatencyHistogram.range(of: bucket, bits: bits).low == LatencyHistogram.range(of: bucket - 1, bits: bits).high + 1)
            }
        }
        var a = LatencyHistogram()
        var b = LatencyHistogram()
        for value: Int64 in [10, 20, 30] { a.record(microseconds: value) }
        for value: Int64 in [40, 5_000] { b.record(microseconds: value) }
        a.merge(b)
        #expect(a.count == 5 && a.minimum == 10 && a.maximum == 5_000 && a.percentile(50) == 30)
        #expect(LatencyHistogram().percentile(99) == 0)
    }

    @Test(
        "only the buckets from the lowest to the highest used are kept: values recorded in any order, or merged from histograms of other spans, give the same histogram and percentiles"
    )
    func keptSpan() {
        let values: [Int64] = [3_000, 150, 90_000, 700, 150, 42, 1_000_000, 3_001]
        var forward = LatencyHistogram()
        var backward = LatencyHistogram()
        for value in values { forward.record(microseconds: value) }
        for value in values.reversed() { backward.record(microseconds: value) }
        #expect(forward == backward)
        // Disjoint spans merged either way round, and into an empty one.
        var low = LatencyHistogram()
        var high = LatencyHistogram()
        for value in values where value < 1_000 { low.record(microseconds: value) }
        for value in values where value >= 1_000 { high.record(microseconds: value) }
        var merged = high
        var empty = LatencyHistogram()
        merged.merge(low)
        empty.merge(forward)
        #expect(merged == forward && empty == forward)
        low.merge(high)
        #expect(low == forward)
        for p in [1.0, 25, 50, 75, 90, 99] { #expect(merged.percentile(p) == forward.percentile(p)) }
        #expect(forward.buckets.map(\.count).reduce(0, +) == UInt64(values.count))
        #expect(forward.buckets.first?.low == 42 && forward.buckets.map(\.low) == forward.buckets.map(\.low).sorted())
    }
}
