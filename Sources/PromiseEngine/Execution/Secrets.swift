/// The values that must never be shown: `secret` variables, and the forms
/// they take through filters. Every output, report and error message goes
/// through `mask`.
public final class Secrets: Sendable {
    private let values = Lock<[String]>([])

    public init() {}

    public func add(_ value: String) {
        guard !value.isEmpty else { return }
        values.withLock { values in
            guard !values.contains(value) else { return }
            values.append(value)
            // Longest first, so a secret containing another is masked whole.
            values.sort { $0.utf8.count > $1.utf8.count }
        }
    }

    public var isEmpty: Bool { values.withLock { $0.isEmpty } }

    /// `text` with every secret replaced by `***`.
    public func mask(_ text: String) -> String {
        let secrets = values.withLock { $0 }
        guard !secrets.isEmpty else { return text }
        var masked = text
        for secret in secrets where masked.contains(secret) {
            masked = masked.replacing(secret, with: "***")
        }
        return masked
    }
}
