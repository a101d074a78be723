import Foundation
import Glibc
import PromiseEngine
import Testing
import WorkflowModel

@testable import Steps

/// A step's outcome, awaited.
func outcome(of promise: Promise<StepResult>) async -> Outcome<StepResult> {
    await promise.settled
}

/// Runs a step to its end.
func run(_ step: ResolvedStep, _ runner: SystemStepRunner, in context: StepContext) async -> Outcome<StepResult> {
    await outcome(of: runner.run(step, in: context))
}

/// The value of a fulfilled outcome; records an issue otherwise.
func value(_ outcome: Outcome<StepResult>, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> StepResult? {
    switch outcome {
    case .fulfilled(let result): return result
    case .rejected(let error):
        Issue.record("expected success, got \(error)", sourceLocation: sourceLocation)
        return nil
    case .cancelled:
        Issue.record("expected success, got cancellation", sourceLocation: sourceLocation)
        return nil
    }
}

/// The StepFailure of a rejected outcome; records an issue otherwise.
func failure(_ outcome: Outcome<StepResult>, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> StepFailure? {
    switch outcome {
    case .rejected(let error as StepFailure): return error
    case .rejected(let error):
        Issue.record("expected a StepFailure, got \(error)", sourceLocation: sourceLocation)
        return nil
    case .fulfilled(let result):
        Issue.record("expected a failure, got \(result)", sourceLocation: sourceLocation)
        return nil
    case .cancelled:
        Issue.record("expected a failure, got cancellation", sourceLocation: sourceLocation)
        return nil
    }
}

func sh(_ command: String, stdin: String? = nil, expect: [ResolvedExpectation] = [], capture: [Capture] = []) -> ResolvedStep {
    .shell(
        command: command,
        process: ResolvedProcessOptions(stdin: stdin.map { $0 }, expectations: expect, captures: capture))
}

func exec(_ arguments: String..., expect: [ResolvedExpectation] = []) -> ResolvedStep {
    .exec(arguments: arguments.map { $0 }, process: ResolvedProcessOptions(expectations: expect))
}

/// The test process's environment, as a step gets it.
var testEnvironment: [String: String] { ProcessInfo.processInfo.environment }

/// A fresh folder under the system's temporary folder, deleted by `remove()`.
struct TemporaryFolder: ~Copyable {
    let path: String

    init() {
        var template = Array((FileManager.default.temporaryDirectory.path + "/steps-test-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp: \(String(cString: strerror(errno)))")
        path = String(cString: made!)
    }

    func context(
        id: String = "test", environment: [String: String] = testEnvironment,
        output: (any StepOutputSink)? = nil
    ) -> StepContext {
        StepContext(id: id, workingDirectory: path, environment: environment, output: output)
    }

    /// `path/name`.
    func file(_ name: String) -> String { path + "/" + name }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Collects the lines a step prints, per stream.
final class LineCollector: StepOutputSink {
    private let lines = Lock<[(OutputChannel, String)]>([])

    func line(_ text: String, stream: OutputChannel, step id: String) {
        lines.withLock { $0.append((stream, text)) }
    }

    func lines(_ stream: OutputChannel) -> [String] {
        lines.withLock { $0.filter { $0.0 == stream }.map(\.1) }
    }
}

/// Waits until `condition` holds, polling; false after `timeout`.
func eventually(timeout: Duration = .seconds(30), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

/// Live (not zombie) processes of a process group, from /proc.
func liveMembers(ofGroup group: pid_t) -> [pid_t] {
    // Process ids wrap at 32,768 here, and a busy suite goes round in
    // minutes: a test that waited long for a thread of the shared pool can
    // find its group's number reused by another test's step. A member
    // that started well after the leader this test saw (noteGroup) is of
    // that other group; this test's scripts start theirs at once.
    let leader = groupLeaders.withLock { $0[group] }
    let ticks = UInt64(max(1, sysconf(Int32(_SC_CLK_TCK))))
    var members: [pid_t] = []
    ProcessGroupScan.forEachProcess { pid, info in
        guard info.group == group else { return }
        if let leader, info.started > leader + 10 * ticks { return }
        members.append(pid)
    }
    return members
}

/// When the leader of each group a test started began (clock ticks since
/// boot, as /proc says): what `liveMembers(ofGroup:)` tells a reused
/// group number by.
private let groupLeaders = Lock<[pid_t: UInt64]>([:])

/// Notes the group a test's step made (its leader's pid), as it runs.
func noteGroup(_ group: pid_t) {
    guard let started = ProcessGroupScan.details(of: group)?.started else { return }
    groupLeaders.withLock { $0[group] = started }
}

/// Whether `pid` is a child of the test process that exited and was not
/// reaped (a zombie of ours).
func isUnreapedChild(_ pid: pid_t) -> Bool {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let end = text.lastIndex(of: ")")
    else { return false }
    let fields = text[text.index(after: end)...].split(separator: " ")
    return fields.count > 2 && fields[0] == "Z" && pid_t(fields[1]) == getpid()
}

/// How many descriptors the test process has open.
func openDescriptorCount() -> Int {
    ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).count
}
