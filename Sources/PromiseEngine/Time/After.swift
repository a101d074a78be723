/// A promise fulfilled after `delay`. Cancelling it stops the timer and
/// cancels it at once.
///
/// ```swift
/// after(.seconds(1)).done { print("a second later") }
/// ```
public func after(_ delay: Duration, clock: any PromiseClock = SystemClock.shared) -> Promise<Void> {
    let (promise, resolver) = Promise<Void>.pending()
    let timer = clock.schedule(after: delay) { resolver.fulfill() }
    resolver.onCancel {
        timer.cancel()
        resolver.cancel()
    }
    return promise
}

extension Promise {
    /// The same value, passed on `delay` after it arrives. Errors pass at once.
    ///
    /// ```swift
    /// Promise(value: "ready").delay(.milliseconds(50)).done { print($0) }
    /// ```
    public func delay(_ delay: Duration, clock: any PromiseClock = SystemClock.shared) -> Promise<Value> {
        then { value in after(delay, clock: clock).map { value } }
    }

    /// The same outcome if it comes within `limit`; otherwise a rejection with
    /// `PromiseError.timedOut`, and a cancellation request upstream (as one
    /// of its children) so the real work stops.
    ///
    /// ```swift
    /// fetch(url).timeout(.seconds(10)).catch { print($0) }   // "timed out after 10s"
    /// ```
    public func timeout(_ limit: Duration, clock: any PromiseClock = SystemClock.shared) -> Promise<Value> {
        let result = Promise<Value>(upstream: self)
        let timer = clock.schedule(after: limit) { [self] in
            var drain = Drain()
            if result.isCancelRequested {
                result.settle(.cancelled, &drain)
            } else if result.settle(.rejected(PromiseError.timedOut(afterNanoseconds: limit.nanosecondsClamped)), &drain) {
                self.cancelAsChild()
            }
            drain.run()
        }
        // No cancel handler stops the timer: if cancelling `result` does not
        // cancel `self` (it has other children), the timer still settles
        // `result`, as cancelled, by the deadline.
        observeNow(
            { pointer, drain in
                timer.cancel()
                result.settle(Outcome<Value>.load(from: pointer), &drain)
            }, asChild: true)
        return result
    }
}
