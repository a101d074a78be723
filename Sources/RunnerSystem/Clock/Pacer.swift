package import PromiseEngine

/// A clock whose timers fire on time, for schedules (a `rate` starts the
/// k-th iteration k/R seconds after its group started, 20,000 a second
/// and more). Its timers run on the event loop's thread, which waits to
/// the microsecond (`EventLoop`), in deadline order: no timer source is
/// made per timer, and a due iteration starts on the thread that sends
/// its request and reads its response, with no hand-over (a thread of its
/// own, as the pacer had before, cost two thread wake-ups a request and
/// a third thread on the cores beside the server's).
///
/// `now()` is the system clock's, so it mixes with `SystemClock` timings.
/// See docs/language.md, 'Load'.
package struct Pacer: PromiseClock {
    /// The pacer every run shares, on the shared event loop.
    package static let shared = Pacer(loop: .shared)

    private let loop: EventLoop

    /// A pacer whose timers run on `loop`.
    package init(loop: EventLoop) {
        self.loop = loop
    }

    package func now() -> Duration {
        SystemClock.shared.now()
    }

    package func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any ScheduledTimer {
        let deadline = ContinuousClock.now + max(.zero, delay)
        let token = loop.makeToken()
        loop.schedule(at: deadline, token: token, action)
        return PacerTimer(loop: loop, token: token)
    }
}

/// A timer of the pacer: cancelling it before it fires removes it.
private struct PacerTimer: ScheduledTimer {
    let loop: EventLoop
    let token: EventLoop.Token

    func cancel() { loop.cancelTimerFromAnyThread(token) }
}
