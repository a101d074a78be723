import Dispatch

/// Where a handler runs.
///
/// The default is `.inline`: on the thread that settles the promise, at once.
/// There is no main-queue default: a Linux command-line tool has no main run
/// loop.
///
/// ```swift
/// let disk = DispatchQueue(label: "disk")
/// fetch(url).done(on: .queue(disk)) { data in save(data) }
/// ```
public enum PromiseContext: Sendable {
    /// On the thread that settles the promise, at once: no hop, no
    /// allocation. Right for short handlers.
    case inline
    /// Asynchronously on the queue (`DispatchQueue.main` for `.main`).
    case queue(DispatchQueue)
}
