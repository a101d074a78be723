import Testing

@testable import WorkflowModel

/// A `rate ... ramp ...` schedule's arrival times, computed (nothing is
/// waited for): iteration k is due where the rate's integral reaches k, so
/// a constant rate gives k/R, a linear ramp from 0 gives √(2kT/R), and the
/// count within a duration is the integral there.
@Suite("A rate's ramp")
struct RateRampTests {
    /// Whether two durations are within a microsecond.
    private func close(_ a: Duration, _ b: Duration) -> Bool {
        abs((a - b).seconds) < 1e-6
    }

    @Test("a stage at a constant rate: iteration k is due at k/R, R·T of them in T")
    func constantRate() {
        let ramp = RateRamp(start: 250, stages: [.init(target: 250, duration: .seconds(4))])
        for index in [0, 1, 2, 250, 999] {
            #expect(close(ramp.due(index), .nanoseconds(Int64(Double(index) / 250 * 1e9))), "iteration \(index)")
        }
        #expect(ramp.iterations() == 1000)
        #expect(ramp.iterations(within: .seconds(1)) == 250)
        #expect(ramp.total == .seconds(4))
        #expect(ramp.peak == 250)
    }

    @Test("a linear ramp from 0/s to R in T: iteration k is due at √(2kT/R), R·T/2 of them in T")
    func linearRamp() {
        let ramp = RateRamp(start: 0, stages: [.init(target: 500, duration: .seconds(30))])
        for index in [0, 1, 2, 100, 3_750, 7_499] {
            let expected = (2 * Double(index) * 30 / 500).squareRoot()
            #expect(close(ramp.due(index), .nanoseconds(Int64((expected * 1e9).rounded()))), "iteration \(index)")
        }
        // Half the iterations by the time the rate reached half its target...
        #expect(ramp.iterations(within: .seconds(15)) == 1_875)
        #expect(ramp.iterations() == 7_500)
        // ...and the gaps between arrivals shrink as the rate grows.
        let gaps = (1..<200).map { ramp.due($0 + 1) - ramp.due($0) }
        #expect(zip(gaps, gaps.dropFirst()).allSatisfy { $0.0 > $0.1 })
    }

    @Test("up and down again: the schedule is symmetric about the peak and ends with the last stage")
    func upAndDown() {
        let ramp = RateRamp(start: 0, stages: [.init(target: 500, duration: .seconds(30)), .init(target: 0, duration: .seconds(30))])
        #expect(ramp.iterations() == 15_000)
        #expect(ramp.peak == 500)
        #expect(close(ramp.due(7_500), .seconds(30)))
        // Iteration 7,500 - k before the peak mirrors 7,500 + k after it.
        for offset in [1, 100, 5_000, 7_499] {
            let before = Duration.seconds(30) - ramp.due(7_500 - offset)
            let after = ramp.due(7_500 + offset) - .seconds(30)
            #expect(close(before, after), "±\(offset)")
        }
        // A rate that ended at 0 brings nothing later than the last stage's end.
        #expect(close(ramp.due(20_000), .seconds(60)))
    }

    @Test("past the last stage the rate stays at its target; a stage of no length only sets the rate")
    func pastTheLastStage() {
        let ramp = RateRamp(start: 0, stages: [.init(target: 100, duration: .zero), .init(target: 20, duration: .seconds(1))])
        // The first stage jumps to 100/s; the second falls to 20/s in 1 s:
        // 60 iterations in it, then one every 50 ms.
        #expect(ramp.iterations() == 60)
        #expect(close(ramp.due(60), .seconds(1)))
        #expect(close(ramp.due(70), .milliseconds(1500)))
        #expect(abs(ramp.integral(upTo: 2) - 80) < 1e-9)
    }

    @Test("the due moment is where the integral reaches the iteration's number")
    func dueInvertsTheIntegral() {
        let ramp = RateRamp(start: 10, stages: [.init(target: 1_000, duration: .seconds(5)), .init(target: 300, duration: .seconds(3))])
        for index in stride(from: 0, to: ramp.iterations(), by: 97) {
            #expect(abs(ramp.integral(upTo: ramp.due(index).seconds) - Double(index)) < 1e-3, "iteration \(index)")
        }
    }
}
