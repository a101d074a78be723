import PromiseTestSupport
import Testing

@testable import PromiseEngine

@Suite("Unhandled errors", .serialized)
struct UnhandledErrorTests {
    @Test("an error nothing observed is reported through the hook when released")
    func reported() {
        let reported = Recorder<String>()
        UnhandledErrors.setHandler { error in
            if let error = error as? TestError, error.id >= 900 { reported.record("\(error)") }
        }
        defer { UnhandledErrors.setHandler(nil) }
        do {
            _ = Promise<Int>(error: TestError(901))
            _ = Promise(value: 1).map { _ -> Int in throw TestError(902) }
            let handled = Promise<Int>(error: TestError(903))
            handled.catch { _ in }
            let looked = Promise<Int>(error: TestError(904))
            _ = looked.outcome
            _ = Promise<Int>(error: TestError(905)).map { $0 }.recover { _ in 0 }
        }
        #expect(reported.events.sorted() == ["TestError(901)", "TestError(902)"])
    }

    @Test("cancellation is not reported")
    func cancellationNotReported() {
        let reported = Counter()
        UnhandledErrors.setHandler { error in if error is CancellationError { reported.increment() } }
        defer { UnhandledErrors.setHandler(nil) }
        do { _ = Promise<Int>.cancelled().map { $0 } }
        #expect(reported.current == 0)
    }
}
