/// How a promise ended: with a value, with an error, or cancelled.
///
/// Cancellation is an outcome of its own, not an error: `catch` and
/// `recover` do not see it, `ensure`, `finally` and `tap` do.
///
/// ```swift
/// switch promise.outcome {
/// case .fulfilled(let value)?: print(value)
/// case .rejected(let error)?: print("failed: \(error)")
/// case .cancelled?: print("cancelled")
/// case nil: print("still pending")
/// }
/// ```
public enum Outcome<Value: Sendable>: Sendable {
    /// The promise was fulfilled with this value.
    case fulfilled(Value)
    /// The promise was rejected with this error.
    case rejected(any Error)
    /// The promise was cancelled: its work stopped, and nobody wants a value.
    case cancelled

    /// The value, if fulfilled.
    @inlinable
    public var value: Value? {
        if case .fulfilled(let value) = self { return value }
        return nil
    }

    /// The error, if rejected.
    @inlinable
    public var error: (any Error)? {
        if case .rejected(let error) = self { return error }
        return nil
    }

    /// Whether the promise was cancelled.
    @inlinable
    public var isCancelled: Bool {
        if case .cancelled = self { return true }
        return false
    }

    /// The value, or throws the error (or `CancellationError` when cancelled).
    @inlinable
    public func get() throws -> Value {
        switch self {
        case .fulfilled(let value): return value
        case .rejected(let error): throw error
        case .cancelled: throw CancellationError()
        }
    }

    /// The same outcome with the value transformed; errors and cancellation pass through.
    @inlinable
    public func map<NewValue: Sendable>(_ transform: (Value) throws -> NewValue) -> Outcome<NewValue> {
        switch self {
        case .fulfilled(let value):
            do { return .fulfilled(try transform(value)) } catch { return .rejected(error) }
        case .rejected(let error): return .rejected(error)
        case .cancelled: return .cancelled
        }
    }

    /// An outcome from a `Result`.
    @inlinable
    public init(_ result: Result<Value, any Error>) {
        switch result {
        case .success(let value): self = .fulfilled(value)
        case .failure(let error): self = .rejected(error)
        }
    }

    /// An outcome from a throwing closure: a thrown `CancellationError` is cancellation.
    @inlinable
    public init(catching body: () throws -> Value) {
        do { self = .fulfilled(try body()) } catch is CancellationError { self = .cancelled } catch { self = .rejected(error) }
    }
}
