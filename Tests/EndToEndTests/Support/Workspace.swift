import Foundation
import Testing

/// A temporary folder with a workflow in it, run by the real binary with a
/// JSON report, so tests can check both what was printed and how each step
/// ended.
struct Workspace {
    let folder: URL

    init() throws {
        folder = try Binary.temporaryFolder()
    }

    /// A folder the caller made (and removes).
    init(folder: URL) {
        self.folder = folder
    }

    func remove() {
        try? FileManager.default.removeItem(at: folder)
    }

    func path(_ name: String) -> String {
        folder.appendingPathComponent(name).path
    }

    func write(_ name: String, _ text: String) throws {
        let url = folder.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    func read(_ name: String) -> String? {
        try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
    }

    /// The same in a workspace of its own, removed after.
    static func expectCheckRefuses(
        _ source: String, with diagnostics: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.expectCheckRefuses(source, with: diagnostics, sourceLocation: sourceLocation)
    }

    /// Writes `source` as `bad.workflow` and expects `check` to refuse it
    /// (exit 2) with each of `diagnostics` (`bad.workflow:LINE:COL: error:
    /// ...`) on its standard error.
    func expectCheckRefuses(
        _ source: String, with diagnostics: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        try write("bad.workflow", source)
        let check = try Binary.run(["check", "--color", "never", "bad.workflow"], in: folder)
        #expect(check.status == 2, "\(check.stderr)", sourceLocation: sourceLocation)
        for line in diagnostics {
            #expect(check.stderr.contains(line), "\(line)\n\(check.stderr)", sourceLocation: sourceLocation)
        }
    }

    /// Writes `workflow` as `test.workflow` and runs it with `arguments`
    /// before the file name and a JSON report.
    func run(_ workflow: String, _ arguments: [String] = [], environment: [String: String] = [:]) throws -> WorkflowRun {
        try write("test.workflow", workflow)
        let outcome = try Binary.run(Self.reportArguments + arguments + ["test.workflow"], in: folder, environment: environment)
        return WorkflowRun(outcome: outcome, reportText: read("report.json"))
    }

    /// The same under `timeout -s KILL`: a run that would stall is killed
    /// after `seconds` (its status is then 137) and the test goes on.
    /// Returns the run and how many seconds it took.
    func run(
        _ workflow: String, _ arguments: [String] = [], environment: [String: String] = [:],
        killedAfter seconds: Int
    ) throws -> (run: WorkflowRun, seconds: Double) {
        try write("test.workflow", workflow)
        let bounded = try Binary.runBounded(
            Self.reportArguments + arguments + ["test.workflow"], seconds: seconds,
            in: folder, environment: environment)
        return (WorkflowRun(outcome: bounded.outcome, reportText: read("report.json")), bounded.seconds)
    }

    // The same, suspending the test's task while the binary runs, so that
    // no thread of Swift concurrency's pool (2 here) waits for a process.

    /// The same in a workspace of its own, removed after.
    static func expectCheckRefuses(
        _ source: String, with diagnostics: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let space = try Workspace()
        defer { space.remove() }
        try await space.expectCheckRefuses(source, with: diagnostics, sourceLocation: sourceLocation)
    }

    /// Writes `source` as `bad.workflow` and expects `check` to refuse it
    /// (exit 2) with each of `diagnostics` (`bad.workflow:LINE:COL: error:
    /// ...`) on its standard error.
    func expectCheckRefuses(
        _ source: String, with diagnostics: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        try write("bad.workflow", source)
        let check = try await Binary.run(["check", "--color", "never", "bad.workflow"], in: folder)
        #expect(check.status == 2, "\(check.stderr)", sourceLocation: sourceLocation)
        for line in diagnostics {
            #expect(check.stderr.contains(line), "\(line)\n\(check.stderr)", sourceLocation: sourceLocation)
        }
    }

    /// Writes `workflow` as `test.workflow` and runs it with `arguments`
    /// before the file name and a JSON report.
    func run(_ workflow: String, _ arguments: [String] = [], environment: [String: String] = [:]) async throws -> WorkflowRun {
        try write("test.workflow", workflow)
        let outcome = try await Binary.run(Self.reportArguments + arguments + ["test.workflow"], in: folder, environment: environment)
        return WorkflowRun(outcome: outcome, reportText: read("report.json"))
    }

    /// The same under `timeout -s KILL`: a run that would stall is killed
    /// after `seconds` (its status is then 137) and the test goes on.
    /// Returns the run and how many seconds it took.
    func run(
        _ workflow: String, _ arguments: [String] = [], environment: [String: String] = [:],
        killedAfter seconds: Int
    ) async throws -> (run: WorkflowRun, seconds: Double) {
        try write("test.workflow", workflow)
        let bounded = try await Binary.runBounded(
            Self.reportArguments + arguments + ["test.workflow"], seconds: seconds,
            in: folder, environment: environment)
        return (WorkflowRun(outcome: bounded.outcome, reportText: read("report.json")), bounded.seconds)
    }

    private static let reportArguments = ["--report", "json=report.json", "--color", "never"]
}

/// One run of a workflow: exit code, output, and the JSON report parsed.
struct WorkflowRun {
    let outcome: Binary.Outcome
    let reportText: String?

    var status: Int32 { outcome.status }
    var stdout: String { outcome.stdout }
    var stderr: String { outcome.stderr }

    var report: [String: Any]? {
        guard let data = reportText?.data(using: .utf8) else { return nil }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }

    var steps: [[String: Any]] { report?["steps"] as? [[String: Any]] ?? [] }

    /// `id status` for every step, in report order.
    var statuses: [String] {
        steps.map { "\($0["id"] as? String ?? "?") \($0["status"] as? String ?? "?")" }
    }

    func step(_ id: String) -> [String: Any]? {
        steps.first { $0["id"] as? String == id }
    }

    /// A group's record in the JSON report.
    func group(_ id: String) -> [String: Any]? {
        (report?["groups"] as? [[String: Any]])?.first { $0["id"] as? String == id }
    }

    /// A step's `error` object (`kind`, `message`, ...), if it failed.
    func error(of id: String) -> [String: Any]? {
        step(id)?["error"] as? [String: Any]
    }

    /// A step's error message, or "" when it did not fail.
    func errorMessage(of id: String) -> String {
        error(of: id)?["message"] as? String ?? ""
    }

    /// The JSON report's statistics of a label that ran more than once
    /// (`count`, `failed`, `latency`, ...).
    func stats(_ label: String) -> [String: Any]? {
        (report?["stats"] as? [String: Any])?[label] as? [String: Any]
    }

    /// One of them as a table of seconds: `latency`, `lateness`.
    func seconds(_ label: String, _ field: String) -> [String: Double]? {
        stats(label)?[field] as? [String: Double]
    }

    /// The lines `log` steps printed, in order.
    func logLines(prefix: String) -> [String] {
        stdout.split(separator: "\n").map(String.init).filter { $0.hasPrefix(prefix) }
    }
}
