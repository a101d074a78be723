import PromiseEngine
import WorkflowModel

/// How far a load group has come (a `repeat`, or a `foreach` with a
/// `rate`), for the progress line a log without a terminal gets
/// every 10 seconds and as the group ends: its iterations ended of those
/// planned, how many a second, their latency (from when each was due, or
/// started without a rate, to its end) and how many failed.
/// See docs/language.md, 'Load'.
package struct LoadProgress: Sendable {
    /// The group's id (`load`, `load[2]` inside another's iteration).
    package var group: String
    package var ended = 0
    package var failed = 0
    /// The iterations planned (`repeat N`, a list, `for D` under a rate);
    /// nil for a `repeat for D` without a rate.
    package var planned: Int?
    /// `repeat for D`: D.
    package var plannedDuration: Duration?
    /// Since the group started.
    package var elapsed: Duration = .zero
    package var latency = LatencyHistogram()

    /// Iterations ended a second, since the group started.
    package var ratePerSecond: Double {
        elapsed > .zero ? Double(ended) / elapsed.seconds : 0
    }
}

/// A running load group's progress, fed as its iterations end.
final class GroupProgress: Sendable {
    private let started: Duration
    private let clock: any PromiseClock
    private let progress: Lock<LoadProgress>

    init(group id: String, planned: Int?, plannedDuration: Duration?, clock: any PromiseClock) {
        self.clock = clock
        started = clock.now()
        progress = Lock(LoadProgress(group: id, planned: planned, plannedDuration: plannedDuration))
    }

    /// An iteration ended (not cancelled), `latency` after it was due or
    /// started.
    func ended(failed: Bool, latency: Duration) {
        progress.withLock { progress in
            progress.ended += 1
            if failed { progress.failed += 1 }
            progress.latency.record(latency)
        }
    }

    /// The progress now.
    var snapshot: LoadProgress {
        let now = clock.now()
        var snapshot = progress.withLock { $0 }
        snapshot.elapsed = now - started
        return snapshot
    }
}
