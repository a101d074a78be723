import Testing

@testable import PromiseEngine
@testable import WorkflowModel

@Suite("Durations")
struct DurationTextTests {
    @Test func formatAndParseRoundTrip() {
        for text in ["250ms", "30s", "5m", "1h", "1m30s", "1h2m3s4ms"] {
            #expect(DurationText.format(DurationText.parse(text)!) == text)
        }
        #expect(DurationText.format(.zero) == "0s")
        #expect(DurationText.format(.seconds(90)) == "1m30s")
    }

    @Test func retryWaits() {
        let backoff = RetryPolicy(count: 3, backoff: .seconds(1))
        #expect((2...5).map { backoff.wait(beforeAttempt: $0) } == [.seconds(1), .seconds(2), .seconds(4), .seconds(8)])
        #expect(RetryPolicy(count: 1, delay: .milliseconds(5)).wait(beforeAttempt: 2) == .milliseconds(5))
        #expect(RetryPolicy(count: 1).wait(beforeAttempt: 2) == .zero)
    }
}
