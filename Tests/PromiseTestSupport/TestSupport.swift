package import PromiseEngine
// Helpers shared by the promise and workflow unit tests.
import Synchronization

/// A distinct error for tests to recognise.
package struct TestError: Error, Equatable, CustomStringConvertible {
    package let id: Int
    package init(_ id: Int = 0) { self.id = id }
    package var description: String { "TestError(\(id))" }
}

/// A thread-safe recorder of events, in order.
package final class Recorder<Event: Sendable>: Sendable {
    private let storage = Lock<[Event]>([])
    package init() {}
    package func record(_ event: Event) { storage.withLock { $0.append(event) } }
    package var events: [Event] { storage.withLock { $0 } }
    package var count: Int { storage.withLock { $0.count } }
}

/// A thread-safe counter.
package final class Counter: Sendable {
    private let value = Atomic<Int>(0)
    package init() {}
    @discardableResult
    package func increment() -> Int { value.add(1, ordering: .relaxed).newValue }
    package var current: Int { value.load(ordering: .relaxed) }
}

extension Outcome {
    package var testDescription: String {
        switch self {
        case .fulfilled(let value): return "fulfilled(\(value))"
        case .rejected(let error): return "rejected(\(error))"
        case .cancelled: return "cancelled"
        }
    }
}

extension Promise {
    /// The outcome as text, "pending" while pending: easy to compare in `#expect`.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    package var state_: String { outcome?.testDescription ?? "pending" }
}

/// A small deterministic generator (SplitMix64), so that tests with random
/// inputs reproduce.
package struct SplitMix: RandomNumberGenerator {
    package var state: UInt64

    package init(state: UInt64) { self.state = state }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
