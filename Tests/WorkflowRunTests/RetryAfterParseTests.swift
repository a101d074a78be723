import Testing

@testable import WorkflowRun

/// `Retry-After`'s value (RFC 9110 §10.2.3): seconds, or an HTTP date in
/// its three forms.
@Suite("Retry-After values")
struct RetryAfterParseTests {
    /// 1994-11-06 08:49:37 UTC, RFC 9110's example date.
    let example = 784_111_777.0

    @Test("the three date forms name the same moment")
    func dates() {
        #expect(RetryAfter.httpDate("Sun, 06 Nov 1994 08:49:37 GMT") == example)
        #expect(RetryAfter.httpDate("Sunday, 06-Nov-94 08:49:37 GMT") == example)
        #expect(RetryAfter.httpDate("Sun Nov  6 08:49:37 1994") == example)
        #expect(RetryAfter.httpDate("Sun, 06 Nov 1994 25:49:37 GMT") == nil)
        #expect(RetryAfter.httpDate("tomorrow") == nil)
    }

    @Test("seconds, a date ahead, a date past, garbage")
    func waits() {
        #expect(RetryAfter.parse("120", now: example) == .seconds(120))
        #expect(RetryAfter.parse(" 0 ", now: example) == .zero)
        #expect(RetryAfter.parse("Sun, 06 Nov 1994 08:49:47 GMT", now: example) == .seconds(10))
        #expect(RetryAfter.parse("Sun, 06 Nov 1994 08:49:27 GMT", now: example) == .zero)
        #expect(RetryAfter.parse("-5", now: example) == nil)
        #expect(RetryAfter.parse("soon", now: example) == nil)
    }
}
