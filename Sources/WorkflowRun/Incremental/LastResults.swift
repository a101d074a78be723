import JSON
import RunnerSystem
import WorkflowModel

/// How a labelled step ended the last time it ran: what the language
/// server's code lens says on its line (`✓ 2.1s, 3 minutes ago`).
/// See docs/language.md, 'Editors'.
package struct LastResult: Sendable, Equatable {
    /// Its last run's: succeeded, up-to-date, failed or cancelled.
    package var status: StepStatus
    /// Its last run's, in seconds (every attempt).
    package var duration: Double
    /// When its last run ended: seconds since the Unix epoch.
    package var finished: Double
    /// How many times it ran in that run (more than one inside `foreach`
    /// or `repeat`), and how many of those failed.
    package var runs = 1
    package var failed = 0

    package init(status: StepStatus, duration: Double, finished: Double, runs: Int = 1, failed: Int = 0) {
        self.status = status
        self.duration = duration
        self.finished = finished
        self.runs = runs
        self.failed = failed
    }

    /// No run: what a label's first run is added to (it ends before any).
    static let none = LastResult(status: .pending, duration: 0, finished: -.infinity, runs: 0, failed: 0)

    /// Adds a run of the same label in the same run: the counts grow, and
    /// the one that ended last is the label's last result.
    mutating func add(_ other: LastResult) {
        runs += other.runs
        failed += other.failed
        if other.finished >= finished {
            status = other.status
            duration = other.duration
            finished = other.finished
        }
    }

    /// What a finished step's record says; nil for one that did not run
    /// (skipped, never started) or has no label.
    static func of(_ record: StepRecord) -> (label: String, result: LastResult)? {
        guard let label = record.label, let started = record.startedAt else { return nil }
        switch record.status {
        case .succeeded, .upToDate, .failed, .cancelled: break
        case .pending, .running, .skipped: return nil
        }
        let duration = record.duration.map { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 } ?? 0
        return (
            label,
            LastResult(
                status: record.status, duration: duration, finished: started + duration,
                failed: record.status == .failed ? 1 : 0)
        )
    }
}

/// `.promise-run/last-results.json` beside the workflow file: per label,
/// how its step ended the last time it ran (`LastResult`). The command
/// writes it after each run that ran a labelled step, through a temporary
/// file and a rename, merged with what it held: a run of some targets
/// keeps the others' last results, and a step that was skipped keeps the
/// one before. A file that is missing, corrupt or of another format holds
/// nothing. The language server's code lens reads it, and watches the
/// folder to show a new run's results (docs/language.md, "The store").
package enum LastResults {
    static let format = "promise-run-last-results/1"

    /// Where the workflow in `workflowDirectory` keeps them.
    package static func path(workflowDirectory: String) -> String {
        Paths.join(workflowDirectory, ".promise-run/last-results.json")
    }

    /// What the file holds, by label.
    package static func load(workflowDirectory: String) -> [String: LastResult] {
        guard case .success(let text) = FileSystem.readText(path(workflowDirectory: workflowDirectory)),
            let document = try? JSONDocument.parse(text), case .object(let object) = document,
            case .string(let format)? = object["format"], format == Self.format,
            case .object(let steps)? = object["steps"]
        else { return [:] }
        var results: [String: LastResult] = [:]
        for member in steps.members {
            guard case .object(let entry) = member.value,
                case .string(let name)? = entry["status"], let status = StepStatus(rawValue: name),
                case .number(let duration)? = entry["duration"], case .number(let finished)? = entry["finished"]
            else { continue }
            var result = LastResult(status: status, duration: duration.doubleValue, finished: finished.doubleValue)
            if case .number(let runs)? = entry["runs"], let count = runs.integerValue { result.runs = count }
            if case .number(let failed)? = entry["failed"], let count = failed.integerValue { result.failed = count }
            results[member.key] = result
        }
        return results
    }

    /// Writes a run's results over those the file holds (labels this run
    /// did not run keep theirs). Nothing is written when the run ran no
    /// labelled step. A failure to write is silent: the lens then shows
    /// the results before.
    package static func save(_ results: [String: LastResult], workflowDirectory: String) {
        guard !results.isEmpty else { return }
        var merged = load(workflowDirectory: workflowDirectory)
        for (label, result) in results { merged[label] = result }
        let steps: [(String, JSONValue)] = merged.keys.sorted().map { label in
            let result = merged[label]!
            return (
                label,
                .object([
                    ("status", .string(result.status.rawValue)),
                    ("duration", .decimal(result.duration, places: 3)),
                    ("finished", .decimal(result.finished, places: 3)),
                    ("runs", .integer(result.runs)),
                    ("failed", .integer(result.failed)),
                ])
            )
        }
        let json = JSONValue.object([("format", .string(format)), ("steps", .object(steps))])
        var bytes = Array((json.rendered() + "\n").utf8)
        let target = path(workflowDirectory: workflowDirectory)
        try? bytes.withUnsafeMutableBytes { try FileSystem().writeAtomically(target, contents: UnsafeRawBufferPointer($0), durable: false) }
    }
}
