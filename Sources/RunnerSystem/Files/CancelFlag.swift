import Synchronization

/// A flag that cancellation sets and long-running work polls.
package final class CancelFlag: Sendable {
    private let value = Atomic<Bool>(false)

    package init() {}

    package func set() { value.store(true, ordering: .releasing) }

    package var isSet: Bool { value.load(ordering: .acquiring) }
}
