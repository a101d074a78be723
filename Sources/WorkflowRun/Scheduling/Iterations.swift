import WorkflowModel

/// The items of a `foreach` or a `repeat`, made as iterations start where
/// they are numbers: `repeat 3000000` and `range(1, 3000000)` hold two
/// integers, not three million strings.
enum Iterations: Sendable {
    /// A list written or read (`["a", "b"]`, `lines`, `split`, `glob`).
    case list([String])
    /// `count` numbers from `first` (a range, `repeat N`, `repeat for D`
    /// with a rate).
    case numbers(first: Int, count: Int)
    /// `repeat for D` without a rate: numbers from 0 until D has passed.
    case open

    /// How many; nil while open.
    var count: Int? {
        switch self {
        case .list(let items): return items.count
        case .numbers(_, let count): return count
        case .open: return nil
        }
    }

    /// The item of iteration `index`.
    subscript(index: Int) -> String {
        switch self {
        case .list(let items): return items[index]
        case .numbers(let first, _): return String(first + index)
        case .open: return String(index)
        }
    }

    /// How many iterations of `repeat for duration` at `rate` per second
    /// are due before the duration ends: the k-th is due at k/rate, so
    /// those with k/rate < duration (at least the first, due at once).
    static func due(within duration: Duration, rate: Double) -> Int {
        let exact = duration.seconds * rate
        return max(1, Int((exact - 1e-9).rounded(.up)))
    }
}
