import Dispatch

/// Where time comes from for `after`, `delay`, `timeout` and `retry`.
///
/// Production code uses `SystemClock`; tests use `ManualClock` and never sleep.
///
/// ```swift
/// func poll(clock: any PromiseClock = SystemClock.shared) -> Promise<Void> {
///     after(.seconds(1), clock: clock)   // tests pass a ManualClock
/// }
/// ```
public protocol PromiseClock: Sendable {
    /// Monotonic time since an arbitrary origin.
    func now() -> Duration
    /// Calls `action` once `delay` has passed, on any thread, unless the
    /// returned timer is cancelled first.
    func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any ScheduledTimer
}

/// A scheduled action that can still be called off.
///
/// ```swift
/// let timer = clock.schedule(after: .seconds(1)) { print("fired") }
/// timer.cancel()                     // before it fires: it never does
/// ```
public protocol ScheduledTimer: Sendable {
    /// Calls the action off if it has not started. Safe to call more than once.
    func cancel()
}

/// Real time: Dispatch timers on a global queue.
///
/// ```swift
/// after(.seconds(1), clock: SystemClock.shared)
/// ```
public struct SystemClock: PromiseClock {
    /// The clock every timed combinator uses unless given another.
    public static let shared = SystemClock()

    /// A system clock (they are all the same clock).
    public init() {}

    public func now() -> Duration {
        .nanoseconds(Int64(bitPattern: DispatchTime.now().uptimeNanoseconds))
    }

    public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any ScheduledTimer {
        let source = DispatchSource.makeTimerSource(queue: DispatchQueue.global())
        let timer = DispatchTimer(source: source)
        source.setEventHandler {
            // One shot: cancelling releases the handler and what it holds.
            timer.source.cancel()
            action()
        }
        let nanoseconds = max(0, delay.nanosecondsClamped)
        source.schedule(deadline: .now() + .nanoseconds(Int(nanoseconds)), leeway: .milliseconds(1))
        source.activate()
        return timer
    }
}

/// A Dispatch timer source. Cancelling it releases its handler at once, so a
/// long timeout that is called off does not keep its promises alive.
private final class DispatchTimer: ScheduledTimer, @unchecked Sendable {
    // @unchecked: DispatchSource is thread-safe; `source` is never reassigned.
    let source: any DispatchSourceTimer

    init(source: any DispatchSourceTimer) {
        self.source = source
    }

    func cancel() { source.cancel() }
}

extension Duration {
    /// Whole nanoseconds, clamped to `Int64`.
    package var nanosecondsClamped: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (sum, overflow2) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        if overflow2 { return seconds < 0 ? .min : .max }
        return sum
    }
}
