import CSystemShims
import Glibc
import PromiseEngine
import RunnerSystem
import Synchronization
import WorkflowModel

/// What a process left when it ended by itself.
struct ProcessRecord: Sendable {
    /// The exit code, or nil when a signal ended it.
    var exitCode: Int?
    var signal: Int?
    var standardOutput: CapturedText
    var standardError: CapturedText
    var duration: Duration
    /// The Slurm job that ran it, when the process was `srun`.
    var slurmJob: String?
}

/// How a process step's work ended.
enum ProcessEnd: Sendable {
    case finished(ProcessRecord)
    /// Stopped by promise-run (cancellation or `killAll`): the whole group
    /// is gone and the leader reaped. The record holds the output read
    /// until then (no exit code): reports show what a cancelled or
    /// timed-out step printed.
    case cancelled(ProcessRecord)

    /// The output it kept, in bytes: what settling it may read through.
    var keptBytes: Int {
        switch self {
        case .finished(let record), .cancelled(let record):
            return record.standardOutput.text.utf8.count + record.standardError.text.utf8.count
        }
    }
}

/// One running child and its process group, from start to reaping.
///
/// Lives on the event loop thread: the pidfd and the pipes are watched
/// there, and `cancel` and `kill` are called there. `start`, on the thread
/// that spawned the child, hands it over to the loop. The leader is
/// reaped only when the step is over, so its pid, which is the group's id,
/// cannot be reused while the group may still be signalled.
final class ProcessExecution: @unchecked Sendable {
    // @unchecked: every `var` is touched only on the event loop thread
    // (`EventLoop.shared`), except in `start`, before the first descriptor
    // is registered (the loop's lock hands the state over), and `start`
    // runs once, under `startGate`, which the loop takes before it reads
    // the state in `cancel` and `kill`; `pid` and the `let`s are immutable,
    // and `killedByRunner` is atomic.

    struct Settings {
        var gracePeriod: Duration
        /// How long to keep reading output after the leader exited while a
        /// process it left behind holds the pipes open.
        var outputLinger: Duration
        var outputLimit: Int
    }

    let pid: pid_t
    /// The step's mark (`StepMarkers`): its processes that left the group
    /// (a new session, a double fork) are found by it.
    let marker: String
    /// `detach`: cancelling the step ends its main process only; the rest
    /// lives on until the end of the run.
    let detached: Bool
    private let child: SpawnedChild
    let id: String
    private let sink: (any StepOutputSink)?
    private let settings: Settings
    private let started: ContinuousClock.Instant
    /// A moment the child existed (made once it was spawned): a /proc scan
    /// begun before it may lack the group and the child's mark, and must
    /// not be read as "all gone". `started` is earlier: when the step asked,
    /// before it waited for a spawning thread.
    private let spawned = ContinuousClock.now
    private let table: ProcessTable
    private let onEnd: (ProcessEnd) -> Void
    private let loop = EventLoop.shared
    /// Set (before the signal is sent) when `killAll` SIGKILLs the group.
    let killedByRunner = Atomic<Bool>(false)
    /// Whether `start` ran; held while it runs.
    private let startGate = Lock<Bool>(false)

    private var outputs: [OutputState]
    private var standardInput: [UInt8]
    private var inputOffset = 0
    /// Our end of the stdin pipe; -1 once closed (or for /dev/null).
    private var inputFD: Int32
    private var inputToken: EventLoop.Token?
    private var pidToken: EventLoop.Token?
    private var exit: (code: Int32, status: Int32)?
    private var phase = Phase.notStarted
    /// Processes outside the group already sent SIGTERM (SIGKILL goes to
    /// all of them once `killing`).
    private var signaledEscapees: Set<pid_t> = []
    private var killing = false
    /// Until when a process inside execve (its mark not readable yet: it
    /// may be one of this step's) keeps the teardown polling: set at the
    /// first look, so that a process stuck there cannot hold a cancelled
    /// step for long.
    private var betweenImagesUntil: ContinuousClock.Instant?
    /// Processes the teardown's last scan found inside execve, followed
    /// until each shows whether it is the step's.
    private var imagesToFollow: ImagesToFollow?
    /// When the teardown first found the step's group empty.
    private var groupGoneAt: ContinuousClock.Instant?

    private enum Phase {
        case notStarted
        case running
        /// The leader exited; waiting for the pipes to close.
        case lingering(timer: EventLoop.Token)
        /// SIGTERM sent; waiting for the whole group to go (SIGKILL at the timer).
        case terminating(killTimer: EventLoop.Token?, pollTimer: EventLoop.Token?)
        case ended
    }

    /// One of the two output pipes.
    private struct OutputState {
        var stream: OutputChannel
        var fd: Int32
        var token: EventLoop.Token?
        var tail: TailBuffer
        var lines: LineSplitter?
        var isOpen: Bool { fd >= 0 }
    }

    init(
        child: SpawnedChild, marker: String, detached: Bool = false, id: String, standardInput: [UInt8], sink: (any StepOutputSink)?,
        settings: Settings, started: ContinuousClock.Instant, table: ProcessTable,
        onEnd: @escaping (ProcessEnd) -> Void
    ) {
        self.pid = child.pid
        self.marker = marker
        self.detached = detached
        self.child = child
        self.id = id
        self.standardInput = standardInput
        self.inputFD = child.standardInput
        self.sink = sink
        self.settings = settings
        self.started = started
        self.table = table
        self.onEnd = onEnd
        outputs = [
            OutputState(
                stream: .stdout, fd: child.standardOutput, tail: TailBuffer(limit: settings.outputLimit),
                lines: sink == nil ? nil : LineSplitter()),
            OutputState(
                stream: .stderr, fd: child.standardError, tail: TailBuffer(limit: settings.outputLimit),
                lines: sink == nil ? nil : LineSplitter()),
        ]
    }

    // MARK: - Starting

    /// Hands the pidfd and the pipes to the event loop: on the spawning
    /// thread, and first thing in `cancel` and `kill` on the loop thread
    /// (which so wait for a start under way on another thread). The first
    /// call does it. The handlers may run as soon as the first descriptor is
    /// registered: every field is set before, and nothing here touches the
    /// object after. The pidfd comes last: until the exit is known, no
    /// handler can end the step and close a descriptor not yet registered.
    func start() {
        startGate.withLock { started in
            guard !started else { return }
            started = true
            handOver()
        }
    }

    private func handOver() {
        phase = .running
        if inputFD >= 0, standardInput.isEmpty { closeInput() }
        let pidToken = loop.makeToken()
        self.pidToken = pidToken
        for index in outputs.indices { outputs[index].token = loop.makeToken() }
        let inputToken = inputFD >= 0 ? loop.makeToken() : nil
        self.inputToken = inputToken
        let pidFD = child.pidFD
        let outputFDs = outputs.map(\.fd)
        let outputTokens = outputs.map(\.token)
        let inputFD = inputFD

        // From here on the loop thread owns this object.
        for index in outputFDs.indices {
            loop.register(outputFDs[index], token: outputTokens[index]!, events: csh_epollin()) { [self] _ in
                readOutput(index)
            }
        }
        if let inputToken {
            loop.register(inputFD, token: inputToken, events: csh_epollout()) { [self] _ in writeInput() }
        }
        loop.register(pidFD, token: pidToken, events: csh_epollin()) { [self] _ in leaderExited() }
    }

    // MARK: - Events

    private func readOutput(_ index: Int) {
        guard outputs[index].isOpen else { return }
        let ended = ReadBuffer.shared.value.drain(outputs[index].fd) { chunk in
            outputs[index].tail.append(chunk)
            if outputs[index].lines != nil {
                let stream = outputs[index].stream
                outputs[index].lines!.append(chunk) { line in sink?.line(line, stream: stream, step: id) }
            }
        }
        if ended {
            closeOutput(index)
            outputClosed()
        }
    }

    private func writeInput() {
        guard inputFD >= 0 else { return }
        let fd = inputFD
        while inputOffset < standardInput.count {
            let offset = inputOffset
            let written = standardInput.withUnsafeBytes { bytes in
                write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            }
            if written > 0 {
                inputOffset += written
            } else if written < 0, errno == EINTR {
                continue
            } else if written < 0, errno == EAGAIN {
                return
            } else {
                break  // EPIPE: the child does not read its input.
            }
        }
        closeInput()
    }

    private func leaderExited() {
        var code: Int32 = 0
        var status: Int32 = 0
        guard csh_peek_exit(pid, &code, &status) == 1 else { return }
        exit = (code, status)
        if let pidToken { loop.unregister(child.pidFD, token: pidToken) }
        pidToken = nil
        close(child.pidFD)
        switch phase {
        case .running:
            if killedByRunner.load(ordering: .acquiring) {
                kill()
            } else if outputs.allSatisfy({ !$0.isOpen }) {
                end()
            } else {
                let timer = loop.schedule(after: settings.outputLinger) { [self] in end() }
                phase = .lingering(timer: timer)
            }
        case .terminating:
            endWhenGroupIsGone()
        case .notStarted, .lingering, .ended:
            break
        }
    }

    private func outputClosed() {
        guard exit != nil, outputs.allSatisfy({ !$0.isOpen }) else { return }
        if case .lingering(let timer) = phase {
            loop.cancelTimer(timer)
            end()
        }
    }

    // MARK: - Stopping

    /// SIGTERM to the group, SIGKILL after the grace period, then reaped.
    func cancel() {
        start()
        switch phase {
        case .ended, .terminating:
            return
        case .lingering(let timer):
            loop.cancelTimer(timer)
        case .notStarted, .running:
            break
        }
        if detached {
            // Its other processes live on (they linger with the group and
            // end with the run); the step ends when its main process does.
            Glibc.kill(pid, SIGTERM)
            Glibc.kill(pid, SIGCONT)
            let killTimer = loop.schedule(after: settings.gracePeriod) { [self] in
                guard case .terminating(_, let poll) = phase else { return }
                phase = .terminating(killTimer: nil, pollTimer: poll)
                Glibc.kill(pid, SIGKILL)
            }
            phase = .terminating(killTimer: killTimer, pollTimer: nil)
            if exit != nil { endWhenGroupIsGone() }
            return
        }
        Glibc.kill(-pid, SIGTERM)
        // A stopped process would not act on SIGTERM until continued.
        Glibc.kill(-pid, SIGCONT)
        let killTimer = loop.schedule(after: settings.gracePeriod) { [self] in
            guard case .terminating(_, let poll) = phase else { return }
            phase = .terminating(killTimer: nil, pollTimer: poll)
            Glibc.kill(-pid, SIGKILL)
            killing = true
            signalEscapees()
        }
        phase = .terminating(killTimer: killTimer, pollTimer: nil)
        signalEscapees()
        if exit != nil { endWhenGroupIsGone() }
    }

    /// The step's processes outside its group, found by its mark: SIGTERM
    /// (and SIGCONT) to those not yet signalled, SIGKILL to all once
    /// `killing`. Returns whether any is alive, or may be: once the group
    /// is gone, a process the scan found inside execve is followed until it
    /// shows whether it is the step's (for a second at most).
    @discardableResult
    private func signalEscapees() -> Bool {
        let census = GroupCensus.shared.value
        let escapees = census.processes(marked: marker, scannedAfter: spawned).filter { $0.group != pid }
        for escapee in escapees { escapee.end(killing: killing, terminated: &signaledEscapees) }
        if !escapees.isEmpty {
            imagesToFollow = nil
            return true
        }
        guard let groupGoneAt else { return false }
        // Only a scan begun after the group emptied can say no process of
        // the step is left: one that left the group (`setsid`) just before
        // is then in it, as an escapee. The shared scan is not taken again
        // for this (one per teardown would make cancelling many steps
        // quadratic): the next one, at most twice a scan's time later, is.
        guard let taken = census.taken, taken > groupGoneAt else { return true }
        if var following = imagesToFollow {
            if following.followed(isOurs: { $0 == marker }) {
                imagesToFollow = nil
                return true
            }
            imagesToFollow = following
        } else {
            imagesToFollow = ImagesToFollow(census.betweenImages)
        }
        let until = betweenImagesUntil ?? ContinuousClock.now + .seconds(1)
        betweenImagesUntil = until
        return imagesToFollow?.isSettled == false && ContinuousClock.now < until
    }

    /// SIGKILL to the group now (`killAll`), then reaped.
    func kill() {
        start()
        switch phase {
        case .ended:
            return
        case .lingering(let timer):
            loop.cancelTimer(timer)
        case .terminating(let killTimer, let pollTimer):
            if let killTimer { loop.cancelTimer(killTimer) }
            if let pollTimer { loop.cancelTimer(pollTimer) }
        case .notStarted, .running:
            break
        }
        Glibc.kill(-pid, SIGKILL)
        killing = true
        signalEscapees()
        phase = .terminating(killTimer: nil, pollTimer: nil)
        if exit != nil { endWhenGroupIsGone() }
    }

    /// Ends as cancelled once no process of the group is alive; polls while
    /// some are (they may be children the leader left behind).
    private func endWhenGroupIsGone() {
        guard case .terminating(let killTimer, let pollTimer) = phase else { return }
        if let pollTimer { loop.cancelTimer(pollTimer) }
        if detached, !killedByRunner.load(ordering: .acquiring) {
            // Only the main process had to go: the group lingers.
            if let killTimer { loop.cancelTimer(killTimer) }
            finish(.cancelled(readSoFar()))
            return
        }
        var escapeesAlive = signalEscapees()
        if groupGoneAt == nil, !ProcessGroupScan.hasLiveMembersShared(pid, existedBy: spawned) {
            groupGoneAt = .now
            escapeesAlive = signalEscapees()
        }
        if !escapeesAlive, groupGoneAt != nil {
            if let killTimer { loop.cancelTimer(killTimer) }
            finish(.cancelled(readSoFar()))
            return
        }
        let poll = loop.schedule(after: .milliseconds(20)) { [self] in endWhenGroupIsGone() }
        phase = .terminating(killTimer: killTimer, pollTimer: poll)
    }

    // MARK: - Ending

    /// The leader exited by itself and its output is read (or lingered long enough).
    private func end() {
        guard let exit else { return }
        let exitCode: Int? = exit.code == csh_cld_exited() ? Int(exit.status) : nil
        let signal: Int? = exit.code == csh_cld_exited() ? nil : Int(exit.status)
        if killedByRunner.load(ordering: .acquiring) {
            phase = .terminating(killTimer: nil, pollTimer: nil)
            endWhenGroupIsGone()
            return
        }
        var texts: [CapturedText] = []
        for index in outputs.indices {
            if let lines = outputs[index].lines {
                var splitter = lines
                let stream = outputs[index].stream
                splitter.finish { line in sink?.line(line, stream: stream, step: id) }
            }
            texts.append(outputs[index].tail.capturedText)
        }
        finish(
            .finished(
                ProcessRecord(
                    exitCode: exitCode, signal: signal, standardOutput: texts[0],
                    standardError: texts[1], duration: started.duration(to: .now))))
    }

    /// What the step printed until now, for a cancelled step's record:
    /// what is still in the pipes is read first (its last words after
    /// SIGTERM may not have been read yet when its exit was seen).
    private func readSoFar() -> ProcessRecord {
        for index in outputs.indices {
            // At most 16 wake-ups' worth (4 MiB): what stays is a
            // chatty process's, and the tail keeps only the end anyway.
            for _ in 0..<16 where outputs[index].isOpen { readOutput(index) }
        }
        return ProcessRecord(
            exitCode: nil, signal: nil, standardOutput: outputs[0].tail.capturedText,
            standardError: outputs[1].tail.capturedText, duration: started.duration(to: .now))
    }

    private func finish(_ outcome: ProcessEnd) {
        if case .ended = phase { return }
        phase = .ended
        for index in outputs.indices where outputs[index].isOpen { drainOutput(index) }
        closeInput()
        if let pidToken {
            loop.unregister(child.pidFD, token: pidToken)
            close(child.pidFD)
            self.pidToken = nil
        }
        // Out of the table before reaping: `killAll` signals only groups
        // whose leader is not reaped.
        table.remove(self)
        var status: Int32 = 0
        _ = retryingOnInterrupt { waitpid(pid, &status, 0) }
        // The leader left processes behind (`cmd &`), or a cancelled
        // detached step's other processes live on: they may run on, but not
        // past promise-run (`killAll`, `shutdown`).
        var lingers = detached
        if case .finished = outcome { lingers = true }
        if lingers, Glibc.kill(-pid, 0) == 0 {
            table.addLingering(group: pid)
        }
        onEnd(outcome)
    }

    private func closeOutput(_ index: Int) {
        guard outputs[index].isOpen else { return }
        if let token = outputs[index].token { loop.unregister(outputs[index].fd, token: token) }
        close(outputs[index].fd)
        outputs[index].fd = -1
        outputs[index].token = nil
    }

    /// The step is over but a process it left behind (`cmd &`, a `detach`
    /// server) still holds the pipe: read on and drop what comes, so that
    /// its writes never fail (a closed pipe would kill it with SIGPIPE),
    /// until the last writer ends, at the latest with the run.
    private func drainOutput(_ index: Int) {
        guard outputs[index].isOpen else { return }
        if let token = outputs[index].token { loop.unregister(outputs[index].fd, token: token) }
        OutputDrain.start(outputs[index].fd, on: loop)
        outputs[index].fd = -1
        outputs[index].token = nil
    }

    private func closeInput() {
        guard inputFD >= 0 else { return }
        if let inputToken {
            loop.unregister(inputFD, token: inputToken)
            self.inputToken = nil
        }
        close(inputFD)
        inputFD = -1
        standardInput = []
    }
}

/// A pipe whose step is over: read and dropped on the loop thread until
/// EOF, then closed.
enum OutputDrain {
    static func start(_ fd: Int32, on loop: EventLoop) {
        let token = loop.makeToken()
        loop.register(fd, token: token, events: csh_epollin()) { _ in
            if ReadBuffer.shared.value.drain(fd, { _ in }) {
                loop.unregister(fd, token: token)
                close(fd)
            }
        }
    }
}

/// The loop thread's buffer for reading pipes.
final class ReadBuffer {
    /// The one buffer, used on the event loop thread only, one read at a time.
    static let shared = LoopBound(handingOver: ReadBuffer(), to: .shared)
    let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)

    /// Reads what `fd` has (a few reads per wake-up, so one chatty process
    /// cannot starve the others), handing each chunk to `body`; true at
    /// EOF or on an error (the caller closes it).
    func drain(_ fd: Int32, _ body: (UnsafeRawBufferPointer) -> Void) -> Bool {
        for _ in 0..<4 {
            let count = read(fd, bytes.baseAddress, bytes.count)
            if count > 0 {
                body(UnsafeRawBufferPointer(rebasing: bytes[..<count]))
                if count < bytes.count { return false }
            } else if count < 0, errno == EINTR {
                continue
            } else if count < 0, errno == EAGAIN {
                return false
            } else {
                return true
            }
        }
        return false
    }
}
