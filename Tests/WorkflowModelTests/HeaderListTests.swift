import Testing

@testable import WorkflowModel

@Suite("Header lists: kept as received bytes, read as text")
struct HeaderListTests {
    /// `Content-Type: text/plain`, `set-cookie: a=1`, `SET-COOKIE: b=2`,
    /// `X-Empty:` as one buffer with their places.
    private func received() -> HeaderList {
        let text = "Content-Type: text/plainset-cookie: a=1SET-COOKIE: b=2X-Empty"
        let bytes = Array(text.utf8)
        func span(_ name: Range<Int32>, _ value: Range<Int32>) -> HeaderList.Span { .init(name: name, value: value) }
        return HeaderList(
            bytes: bytes,
            spans: [
                span(0..<12, 14..<24), span(24..<34, 36..<39), span(39..<49, 51..<54),
                span(54..<61, 61..<61),
            ])
    }

    @Test func receivedBytesReadInOrderAsTheyCame() {
        let headers = received()
        #expect(headers.count == 4)
        #expect(headers.map(\.name) == ["Content-Type", "set-cookie", "SET-COOKIE", "X-Empty"])
        #expect(headers.map(\.value) == ["text/plain", "a=1", "b=2", ""])
        #expect(headers.value(at: 1) == "a=1")
    }

    @Test func valuesByNameWhateverTheCase() {
        #expect(received().values(named: "set-cookie") == ["a=1", "b=2"])
        #expect(received().values(named: "content-type") == ["text/plain"])
        #expect(received().values(named: "missing").isEmpty)
        let text: HeaderList = [("Retry-After", "5"), ("retry-after", "7")]
        #expect(text.values(named: "retry-after") == ["5", "7"])
        #expect(text.value(at: 0) == "5")
    }

    @Test func aResultJoinsEveryValueOfAName() {
        let result = StepResult(status: 200, headers: received())
        #expect(result.header("Set-Cookie") == "a=1, b=2")
        #expect(result.header("x-empty") == "")
        #expect(result.header("nope") == nil)
    }
}
