import CSystemShims
import Glibc
package import PromiseEngine
import Synchronization

/// A clock whose timers fire on time, for schedules (a `rate`
/// starts the k-th iteration k/R seconds after its group started, 20,000
/// a second and more). One thread of its own sleeps until the earliest
/// deadline with a timer slack of a microsecond and runs what is due
/// there, in deadline order: no timer source is made per timer, and the
/// work of a due iteration starts at once, not behind a pool's queue.
///
/// `now()` is the system clock's, so it mixes with `SystemClock` timings.
/// See docs/language.md, 'Load'.
package final class Pacer: PromiseClock, @unchecked Sendable {
    // @unchecked: `heap` and `nextToken` are read and written only under
    // `mutex`; the pthread objects are made once and never freed (the
    // shared pacer lives as long as the process).

    /// The pacer every run shares; its thread starts with the first timer.
    package static let shared = Pacer()

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var heap = TimerHeap()
    private var nextToken: UInt64 = 1
    private var started = false

    private init() {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    package func now() -> Duration {
        SystemClock.shared.now()
    }

    package func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any ScheduledTimer {
        let deadline = ContinuousClock.now + max(.zero, delay)
        pthread_mutex_lock(mutex)
        let token = nextToken
        nextToken += 1
        let wasFirst = heap.nextDeadline.map { deadline < $0 } ?? true
        heap.insert(token: token, deadline: deadline, work: action)
        if !started {
            started = true
            startThread()
        }
        pthread_mutex_unlock(mutex)
        // The thread sleeps until the earliest deadline: an earlier one wakes it.
        if wasFirst { pthread_cond_signal(condition) }
        return PacerTimer(pacer: self, token: token)
    }

    fileprivate func cancel(_ token: UInt64) {
        pthread_mutex_lock(mutex)
        heap.cancel(token)
        pthread_mutex_unlock(mutex)
    }

    private func startThread() {
        startDetachedThread(named: "pr-pacer") { [self] in
            csh_set_timer_slack(1_000)
            run()
        }
    }

    private func run() {
        var due: [() -> Void] = []
        while true {
            pthread_mutex_lock(mutex)
            while true {
                let now = ContinuousClock.now
                while let work = heap.popDue(now: now) { due.append(work) }
                if !due.isEmpty { break }
                guard let next = heap.nextDeadline else {
                    pthread_cond_wait(condition, mutex)
                    continue
                }
                var until = timespec()
                clock_gettime(CLOCK_MONOTONIC, &until)
                let (seconds, attoseconds) = (next - now).components
                let nanoseconds = Int(until.tv_nsec) + Int(attoseconds / 1_000_000_000)
                until.tv_sec += Int(seconds) + nanoseconds / 1_000_000_000
                until.tv_nsec = nanoseconds % 1_000_000_000
                pthread_cond_timedwait(condition, mutex, &until)
            }
            pthread_mutex_unlock(mutex)
            for work in due { work() }
            due.removeAll(keepingCapacity: true)
        }
    }
}

/// A timer of the pacer: cancelling it before it fires removes it.
private struct PacerTimer: ScheduledTimer {
    let pacer: Pacer
    let token: UInt64

    func cancel() { pacer.cancel(token) }
}
