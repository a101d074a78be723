import PromiseTestSupport
import Testing

@testable import PromiseEngine

@Suite("Progress")
struct ProgressTests {
    @Test("a promise reports fractional progress, and 1 when fulfilled")
    func reports() {
        let seen = Recorder<Double>()
        let (p, r) = Promise<Int>.pending()
        p.onProgress { seen.record($0) }
        r.progress(0.25)
        r.progress(0.5)
        r.fulfill(1)
        r.progress(0.75)
        #expect(seen.events == [0.25, 0.5, 1])
        #expect(p.progress == 1)
    }

    @Test("progress is clamped to 0...1, and a late listener hears the last value")
    func clampedAndLate() {
        let seen = Recorder<Double>()
        let (p, r) = Promise<Int>.pending()
        r.progress(7)
        p.onProgress { seen.record($0) }
        r.progress(-1)
        #expect(seen.events == [1, 0])
    }

    @Test("a derived promise reports the progress of what it waits on")
    func derivedForwards() {
        let seen = Recorder<Double>()
        let (p, r) = Promise<Int>.pending()
        let chained = p.map { $0 + 1 }.get { _ in }
        chained.onProgress { seen.record($0) }
        r.progress(0.4)
        r.fulfill(1)
        #expect(seen.events == [0.4, 1], "1 once, not once per link")
    }

    @Test("when combines its inputs' progress as their mean")
    func whenCombines() {
        let seen = Recorder<Double>()
        let (a, ra) = Promise<Int>.pending()
        let (b, rb) = Promise<Int>.pending()
        let all = when(fulfilled: [a, b])
        all.onProgress { seen.record($0) }
        ra.progress(0.5)
        rb.progress(1)
        ra.fulfill(1)
        #expect(seen.events == [0.25, 0.75, 1])
    }

    @Test("no progress after a failure")
    func noneAfterFailure() {
        let seen = Recorder<Double>()
        let (p, r) = Promise<Int>.pending()
        p.onProgress { seen.record($0) }
        r.reject(TestError())
        r.progress(0.5)
        #expect(seen.events.isEmpty)
    }
}
