import PromiseEngine

/// The last few URLs parsed, by their text: a load test sends one step's
/// URL thousands of times a second, and parsing it (host, port, target,
/// the `Host` header, the origin) was a twentieth of a request's
/// instructions. A parse depends on the text alone, so a hit is the same
/// value a parse would give. Failures are not kept (they end the step).
final class RecentURLs: Sendable {
    /// How many URLs are kept: the steps of a load test's body.
    static let capacity = 8

    private struct Entry {
        let text: String
        let url: RequestURL
    }

    /// `Lock`, not a bare `Mutex`: ThreadSanitizer sees its hand-overs.
    private let entries = Lock<(kept: [Entry], next: Int)>(([], 0))

    /// The URL `text` parses to, parsed by `parse` when it is not kept.
    func url(for text: String, parse: (String) -> RequestURL?) -> RequestURL? {
        if let kept = entries.withLock({ state in state.kept.first { $0.text == text }?.url }) { return kept }
        guard let url = parse(text) else { return nil }
        entries.withLock { state in
            let entry = Entry(text: text, url: url)
            if state.kept.count < Self.capacity {
                state.kept.append(entry)
            } else {
                state.kept[state.next] = entry
                state.next = (state.next + 1) % Self.capacity
            }
        }
        return url
    }
}
