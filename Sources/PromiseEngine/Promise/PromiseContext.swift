import CSyncAnnotations
public import Dispatch

/// Where a handler runs.
///
/// The default is `.inline`: on the thread that settles the promise, at once.
/// There is no main-queue default: a Linux command-line tool has no main run
/// loop.
///
/// ```swift
/// let disk = DispatchQueue(label: "disk")
/// fetch(url).done(on: .queue(disk)) { data in save(data) }
/// cached.map(on: .nowOr(.queue(disk))) { parse($0) }      // at once if already settled
/// Promise(value: 1).done(on: .deferred) { _ in }          // never before `done` returns
/// ```
public indirect enum PromiseContext: Sendable {
    /// On the thread that settles the promise, at once: no hop, no
    /// allocation. Right for short handlers. (Tomorrowland's `.immediate`.)
    case inline
    /// Asynchronously on the queue (`DispatchQueue.main` for `.main`).
    case queue(DispatchQueue)
    /// At once, before the registering call returns, if the promise has
    /// settled by then (inside that call `PromiseContext.isExecutingNow` is
    /// true); otherwise on `context`. For code that would look at
    /// `promise.outcome` first and register a handler only when it is nil
    /// (Tomorrowland's `.nowOr(_:)`).
    ///
    /// ```swift
    /// image.map(on: .nowOr(.main)) { picture in
    ///     view.show(picture, animated: !PromiseContext.isExecutingNow)   // no fade when cached
    /// }
    /// ```
    case nowOr(PromiseContext)

    /// Promises/A+'s order (2.2.4 and 2.2.6): a handler never runs before
    /// the call that registered it, nor the call that settled the promise,
    /// has returned, and handlers run one at a time in the order they became
    /// due, on one serial queue of the engine's own (as JavaScript's
    /// microtasks do). `.inline`, the default, runs them at once instead: no
    /// hop and no allocation, which is why it is the default.
    ///
    /// ```swift
    /// var order: [String] = []                    // touched only on the deferred queue
    /// Promise(value: 1).done(on: .deferred) { _ in order.append("handler") }
    /// // `done` has returned before "handler" is appended, even though the
    /// // promise was already fulfilled.
    /// ```
    public static let deferred = PromiseContext.queue(DispatchQueue(label: "PromiseEngine.deferred"))

    /// Tomorrowland's spelling of `.inline`.
    ///
    /// ```swift
    /// resolver.onCancel { task.cancel() }; fetch().done(on: .immediate) { use($0) }
    /// ```
    public static var immediate: PromiseContext { .inline }

    /// Whether the code running now is a handler that `.nowOr` runs at once
    /// (the promise had settled when the handler was registered), or code
    /// such a handler runs synchronously (an `.inline` handler it settles
    /// inline). False everywhere else, including a `.nowOr` handler that
    /// runs later on its context.
    ///
    /// ```swift
    /// thumbnail.done(on: .nowOr(.main)) { image in
    ///     if PromiseContext.isExecutingNow { view.image = image } else { view.fadeIn(image) }
    /// }
    /// ```
    public static var isExecutingNow: Bool { csync_executing_now() != 0 }

    /// Runs `body` with `isExecutingNow` true (and restores it after).
    @usableFromInline
    static func executingNow<Result>(_ body: () -> Result) -> Result {
        let previous = csync_executing_now()
        csync_set_executing_now(1)
        defer { csync_set_executing_now(previous) }
        return body()
    }

    /// Runs `body` on this context: at once for `.inline`, later on the
    /// queue for `.queue`. `.nowOr` runs it at once (as executing now) when
    /// `now`, else on its context: for work with no promise to look at (a
    /// delayed promise's body, a cancel callback), `now` says which.
    @usableFromInline
    func execute(now: Bool = false, _ body: @escaping @Sendable () -> Void) {
        switch self {
        case .inline: body()
        case .queue(let queue): queue.async(execute: body)
        case .nowOr(let later):
            if now {
                PromiseContext.executingNow(body)
            } else {
                later.execute(body)
            }
        }
    }
}
