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
@usableFromInline
package final class EventLoop: Sendable {
    /// The loop every runner shares; its thread lives as long as the process.
    package static let shared = EventLoop()

    /// An id for a registered descriptor or a timer.
    package typealias Token = UInt64

    private let epollFD: Int32
    private let wakeFD: Int32
    /// Work handed over by other threads, run in order on the loop thread.
    private let inbox = Lock<[@Sendable () -> Void]>([])
    private let threadID = Atomic<UInt>(0)
    private let confined: Confined
    /// The handler of every registered descriptor. Locked: any thread may
    /// register; only the loop thread calls and removes handlers.
    private let handlers = Lock<Handlers>(Handlers())
    private let nextToken = Atomic<Token>(1)
    /// The thread is started with the first work or descriptor: a run
    /// that starts no process and sends no request starts none.
    private let threadStarted = Atomic<Bool>(false)

    /// What only the loop thread touches.
    private final class Confined: @unchecked Sendable {
        // @unchecked: read and written only on the loop thread (`run`, the
        // handlers, and work passed to `execute`).
        var timers = TimerHeap()
    }

    private struct Handlers: @unchecked Sendable {
        // @unchecked: the handlers are called on the loop thread only; the
        // lock hands the state they capture over from the registering thread.
        /// Room for many more than are ever registered at once: kept
        /// sparse, a lookup or a removal (three of each per process step)
        /// touches one bucket, not a run of neighbours to rehash.
        var byToken: [Token: (UInt32) -> Void] = Dictionary(minimumCapacity: 1024)
    }

    private init() {
        epollFD = csh_epoll_create()
        wakeFD = csh_eventfd()
        precondition(epollFD >= 0 && wakeFD >= 0, "epoll/eventfd: \(systemReason(errno))")
        confined = Confined()
        // Token 0 is the wake-up descriptor.
        _ = csh_epoll_ctl(epollFD, wakeFD, csh_epollin(), 0, 0)
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
    package func register(_ fd: Int32, token: Token, events: UInt32, _ handler: @escaping (UInt32) -> Void) {
        startThread()
        handlers.withLock { $0.byToken[token] = handler }
        if csh_epoll_ctl(epollFD, fd, events, token, 0) != 0 {
            // Cannot happen for the pipes and pidfds registered here.
            let failure = errno
            preconditionFailure("epoll_ctl(ADD, \(fd)): \(systemReason(failure))")
        }
    }

    // MARK: - On the loop thread

    /// Changes the events `fd` is watched for.
    package func modify(_ fd: Int32, token: Token, events: UInt32) {
        assert(inLoop)
        _ = csh_epoll_ctl(epollFD, fd, events, token, 1)
    }

    /// Stops watching `fd` (before it is closed).
    package func unregister(_ fd: Int32, token: Token) {
        assert(inLoop)
        _ = csh_epoll_remove(epollFD, fd)
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
        while true {
            let timeout = nanosecondsToNextTimer()
            let count = events.withUnsafeMutableBufferPointer { buffer in
                csh_epoll_wait(epollFD, buffer.baseAddress, Int32(buffer.count), timeout)
            }
            if count > 0 {
                for index in 0..<Int(count) {
                    let event = events[index]
                    if event.token == 0 {
                        _ = csh_eventfd_drain(wakeFD)
                        runInbox()
                    } else if let handler = handlers.withLock({ $0.byToken[event.token] }) {
                        handler(event.events)
                    }
                }
            }
            runDueTimers()
            // Work the loop's own thread handed itself while it ran.
            runInbox()
        }
    }

    private func runInbox() {
        while true {
            let work = inbox.withLock { inbox in
                let taken = inbox
                inbox.removeAll(keepingCapacity: true)
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
