import CSystemShims
import Glibc
import PromiseEngine
import Synchronization

/// One thread that waits, with epoll, on the descriptors of every running
/// process (pidfds, output pipes, stdin pipes) and HTTP connection, and
/// runs their timers (grace periods, output lingering, teardown polls,
/// idle connections) and a `rate`'s schedule (`Pacer`), to the
/// microsecond: its wait is epoll_pwait2's, with a timer slack of 1 µs.
///
/// Hundreds of children cost a few descriptors each and no thread. All the
/// state of a process lives on this thread: handlers, timers and the work
/// given to `execute` run here, one at a time, so they need no locks.
/// Descriptors may be registered from any thread (a spawning thread hands
/// a new child over without waking the loop); from the registration on,
/// its handler runs here.
///
/// A descriptor registered as deferrable (a TCP connection that takes
/// the kernel's receive timestamps) may be left unread for a while: when
/// the loop will wake within `deferLimit` anyway (a `rate`'s next due
/// moment, at 1,000 a second and more), it does not wake for it too, and
/// reads what arrived at that moment. Under a fast schedule that is one
/// wake-up a request, not two (each costs about 10 µs of kernel time on a
/// VM); the reader takes its timings from the receive stamps, so what was
/// measured stays true (docs/language.md, 'Load').
@usableFromInline
package final class EventLoop: Sendable {
    /// The loop every runner shares; its thread lives as long as the process.
    package static let shared = EventLoop()

    /// An id for a registered descriptor or a timer.
    package typealias Token = UInt64

    private let epollFD: Int32
    private let wakeFD: Int32
    /// The deferrable descriptors' own epoll set. While it sits in
    /// `epollFD` (token 1), the loop wakes for them as for any other.
    private let deferredFD: Int32
    /// The longest a deferrable descriptor's events wait for the loop's
    /// next wake-up.
    package static let deferLimit: Int64 = 1_000_000
    /// Work handed over by other threads, run in order on the loop thread.
    private let inbox = Lock<[@Sendable () -> Void]>([])
    private let threadID = Atomic<UInt>(0)
    private let confined: Confined
    /// The handler of every registered descriptor. Locked: any thread may
    /// register; only the loop thread calls and removes handlers.
    private let handlers = Lock<Handlers>(Handlers())
    private let nextToken = Atomic<Token>(2)
    /// The thread is started with the first work or descriptor: a run
    /// that starts no process and sends no request starts none.
    private let threadStarted = Atomic<Bool>(false)

    /// What only the loop thread touches.
    private final class Confined: @unchecked Sendable {
        // @unchecked: read and written only on the loop thread (`run`, the
        // handlers, and work passed to `execute`).
        var timers = TimerHeap()
        /// Whether `deferredFD` is in the loop's own set now.
        var wakesForDeferred = true
    }

    private struct Handlers: @unchecked Sendable {
        // @unchecked: the handlers are called on the loop thread only; the
        // lock hands the state they capture over from the registering thread.
        /// Room for many more than are ever registered at once: kept
        /// sparse, a lookup or a removal (three of each per process step)
        /// touches one bucket, not a run of neighbours to rehash.
        var byToken: [Token: (UInt32) -> Void] = Dictionary(minimumCapacity: 1024)
    }

    /// A loop of its own (tests); runners share `shared`. Its thread,
    /// once started, lives as long as the process.
    init() {
        epollFD = csh_epoll_create()
        wakeFD = csh_eventfd()
        deferredFD = csh_epoll_create()
        precondition(epollFD >= 0 && wakeFD >= 0 && deferredFD >= 0, "epoll/eventfd: \(systemReason(errno))")
        confined = Confined()
        // Token 0 is the wake-up descriptor, token 1 the deferrable set.
        _ = csh_epoll_ctl(epollFD, wakeFD, csh_epollin(), 0, 0)
        _ = csh_epoll_ctl(epollFD, deferredFD, csh_epollin(), 1, 0)
    }

    /// Starts the loop's thread, once.
    private func startThread() {
        guard !threadStarted.load(ordering: .acquiring),
            threadStarted.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        startDetachedThread(named: "promise-run.io") { [self] in run() }
    }

    /// Whether the caller runs on the loop thread.
    @usableFromInline
    package var inLoop: Bool { threadID.load(ordering: .acquiring) == UInt(pthread_self()) }

    /// Runs `work` on the loop thread, after the work handed over before it.
    package func execute(_ work: @escaping @Sendable () -> Void) {
        startThread()
        let wasEmpty = inbox.withLock { inbox in
            inbox.append(work)
            return inbox.count == 1
        }
        // The loop's own thread has no one to wake: the loop runs its
        // inbox before it waits again (a step that settles on the loop and
        // starts the next one saves a write, a wake-up and a read).
        if wasEmpty, !inLoop { _ = csh_eventfd_signal(wakeFD) }
    }

    /// A new id for `register`. Any thread.
    package func makeToken() -> Token {
        nextToken.add(1, ordering: .relaxed).oldValue
    }

    /// Calls `handler` on the loop thread with the epoll events whenever
    /// `fd` is ready, from now on. Any thread: what the handler reads was
    /// written before this call is visible to it.
    /// A `deferrable` descriptor's events may wait for the loop's next
    /// wake-up, at most `deferLimit` (see the type's comment).
    package func register(
        _ fd: Int32, token: Token, events: UInt32, deferrable: Bool = false, _ handler: @escaping (UInt32) -> Void
    ) {
        startThread()
        handlers.withLock { $0.byToken[token] = handler }
        if csh_epoll_ctl(deferrable ? deferredFD : epollFD, fd, events, token, 0) != 0 {
            // Cannot happen for the pipes and pidfds registered here.
            let failure = errno
            preconditionFailure("epoll_ctl(ADD, \(fd)): \(systemReason(failure))")
        }
    }

    // MARK: - On the loop thread

    /// Changes the events `fd` is watched for (`deferrable` as registered).
    package func modify(_ fd: Int32, token: Token, events: UInt32, deferrable: Bool = false) {
        assert(inLoop)
        _ = csh_epoll_ctl(deferrable ? deferredFD : epollFD, fd, events, token, 1)
    }

    /// Makes a registered descriptor deferrable from now on (a connection
    /// once connected: its connect is timed by the loop's clock).
    package func makeDeferrable(_ fd: Int32, token: Token, events: UInt32) {
        assert(inLoop)
        _ = csh_epoll_remove(epollFD, fd)
        _ = csh_epoll_ctl(deferredFD, fd, events, token, 0)
    }

    /// Stops watching `fd` (before it is closed).
    package func unregister(_ fd: Int32, token: Token, deferrable: Bool = false) {
        assert(inLoop)
        _ = csh_epoll_remove(deferrable ? deferredFD : epollFD, fd)
        _ = handlers.withLock { $0.byToken.removeValue(forKey: token) }
    }

    /// Runs `work` on the loop thread after `delay`.
    @discardableResult
    package func schedule(after delay: Duration, _ work: @escaping () -> Void) -> Token {
        assert(inLoop)
        let token = makeToken()
        confined.timers.insert(token: token, deadline: .now + delay, work: work)
        return token
    }

    package func cancelTimer(_ token: Token) {
        assert(inLoop)
        confined.timers.cancel(token)
    }

    // MARK: - Timers from any thread

    /// Runs `work` on the loop thread at `deadline` (from any thread; on
    /// the loop thread itself without a hand-over). The token cancels it
    /// (`cancelTimerFromAnyThread`).
    package func schedule(at deadline: ContinuousClock.Instant, token: Token, _ work: @escaping @Sendable () -> Void) {
        if inLoop {
            confined.timers.insert(token: token, deadline: deadline, work: work)
        } else {
            execute { [self] in confined.timers.insert(token: token, deadline: deadline, work: work) }
        }
    }

    /// Cancels a timer `schedule(at:token:_:)` made, from any thread. A
    /// timer already run, or running, is not called off.
    package func cancelTimerFromAnyThread(_ token: Token) {
        if inLoop {
            confined.timers.cancel(token)
        } else {
            execute { [self] in confined.timers.cancel(token) }
        }
    }

    // MARK: - The loop

    private func run() {
        threadID.store(UInt(pthread_self()), ordering: .releasing)
        // A due timer wakes the loop within a microsecond, not the
        // default 50 µs (a `rate`'s lateness is measured from its due
        // moment).
        csh_set_timer_slack(1_000)
        var events = [csh_event](repeating: csh_event(), count: 64)
        var deferred = [csh_event](repeating: csh_event(), count: 64)
        while true {
            let timeout = nanosecondsToNextTimer()
            // Waking within the limit anyway: the deferrable descriptors
            // wait for that wake-up (one epoll_ctl when this changes, not
            // one a request).
            let defers = timeout >= 0 && timeout <= Self.deferLimit
            if defers == confined.wakesForDeferred {
                confined.wakesForDeferred = !defers
                if defers {
                    _ = csh_epoll_remove(epollFD, deferredFD)
                } else {
                    _ = csh_epoll_ctl(epollFD, deferredFD, csh_epollin(), 1, 0)
                }
            }
            let count = events.withUnsafeMutableBufferPointer { buffer in
                csh_epoll_wait(epollFD, buffer.baseAddress, Int32(buffer.count), timeout)
            }
            var deferredReady = false
            if count > 0 {
                for index in 0..<Int(count) {
                    let event = events[index]
                    if event.token == 0 {
                        _ = csh_eventfd_drain(wakeFD)
                        runInbox()
                    } else if event.token == 1 {
                        deferredReady = true
                    } else if let handler = handlers.withLock({ $0.byToken[event.token] }) {
                        handler(event.events)
                    }
                }
            }
            // Due work first (a schedule's request goes out on time), then
            // what the deferrable descriptors have.
            runDueTimers()
            if deferredReady || defers { runDeferred(&deferred) }
            // Work the loop's own thread handed itself while it ran.
            runInbox()
        }
    }

    /// Handles what the deferrable descriptors have now, without waiting:
    /// 16 batches at most, then the loop's timers and work come first.
    private func runDeferred(_ events: inout [csh_event]) {
        for _ in 0..<16 {
            let count = events.withUnsafeMutableBufferPointer { buffer in
                csh_epoll_wait(deferredFD, buffer.baseAddress, Int32(buffer.count), 0)
            }
            guard count > 0 else { return }
            for index in 0..<Int(count) {
                let event = events[index]
                if let handler = handlers.withLock({ $0.byToken[event.token] }) { handler(event.events) }
            }
            if count < Int32(events.count) { return }
        }
    }

    private func runInbox() {
        while true {
            // Nothing to take: no copy of the (shared) list, whose
            // `removeAll(keepingCapacity:)` allocated at every turn.
            let work = inbox.withLock { inbox -> [@Sendable () -> Void] in
                if inbox.isEmpty { return [] }
                var taken: [@Sendable () -> Void] = []
                swap(&taken, &inbox)
                return taken
            }
            if work.isEmpty { return }
            for item in work { item() }
        }
    }

    private func nanosecondsToNextTimer() -> Int64 {
        guard let next = confined.timers.nextDeadline else { return -1 }
        let remaining = ContinuousClock.now.duration(to: next)
        if remaining <= .zero { return 0 }
        let (seconds, attoseconds) = remaining.components
        // A day at most: the loop wakes, finds nothing due, and waits again.
        return min(seconds, 86_400) * 1_000_000_000 + (attoseconds + 999_999_999) / 1_000_000_000
    }

    private func runDueTimers() {
        guard !confined.timers.isEmpty else { return }
        let now = ContinuousClock.now
        // One at a time: a timer's work may cancel another that is due too.
        while let work = confined.timers.popDue(now: now) {
            work()
        }
    }
}
