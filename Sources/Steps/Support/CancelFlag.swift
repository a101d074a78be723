import Synchronization

/// A flag that cancellation sets and long-running work polls.
final class CancelFlag: Sendable {
    private let value = Atomic<Bool>(false)

    init() {}

    func set() { value.store(true, ordering: .releasing) }

    var isSet: Bool { value.load(ordering: .acquiring) }
}
