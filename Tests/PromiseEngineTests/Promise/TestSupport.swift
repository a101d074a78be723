import Synchronization
@testable import PromiseEngine

/// A distinct error for tests to recognise.
struct TestError: Error, Equatable, CustomStringConvertible {
    let id: Int
    init(_ id: Int = 0) { self.id = id }
    var description: String { "TestError(\(id))" }
}

/// A thread-safe recorder of events, in order.
final class Recorder<Event: Sendable>: Sendable {
    private let storage = Lock<[Event]>([])
    func record(_ event: Event) { storage.withLock { $0.append(event) } }
    var events: [Event] { storage.withLock { $0 } }
    var count: Int { storage.withLock { $0.count } }
}

/// A thread-safe counter.
final class Counter: Sendable {
    private let value = Atomic<Int>(0)
    @discardableResult
    func increment() -> Int { value.add(1, ordering: .relaxed).newValue }
    var current: Int { value.load(ordering: .relaxed) }
}

extension Outcome {
    var testDescription: String {
        switch self {
        case .fulfilled(let value): return "fulfilled(\(value))"
        case .rejected(let error): return "rejected(\(error))"
        case .cancelled: return "cancelled"
        }
    }
}

extension Promise {
    /// The outcome as text, "pending" while pending: easy to compare in `#expect`.
    var state_: String { outcome?.testDescription ?? "pending" }
}
