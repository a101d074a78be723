import Dispatch

/// Where a handler runs.
///
/// The default is `.inline`: on the thread that settles the promise, at once.
/// There is no main-queue default: a Linux command-line tool has no main run
/// loop.
public enum Executor: Sendable {
    case inline
    case queue(DispatchQueue)
}
