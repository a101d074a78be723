package import WorkflowModel
package import WorkflowRun

/// One failure as every report lists it: a failed step, a group that
/// failed on its own (a timeout), or the run itself (`--timeout`, the
/// workflow's `timeout`).
package struct ReportFailure {
    /// Where the failure happened.
    package enum Source {
        /// A step that failed.
        case step(StepRecord)
        /// A group that failed on its own.
        case group(GroupRecord)
        /// The run itself (`--timeout`, the workflow's `timeout`).
        case run
    }

    /// The step's or group's id; the run's: the step its error names.
    package var id: String
    /// `sh`, `http`, ... for a step; `parallel`, `foreach`, ... for a
    /// group; `workflow` for the run.
    package var kind: String
    /// How it failed (`fail`, `timeout`, ...).
    package var failureKind: FailureKind
    /// What went wrong, in a line.
    package var message: String
    /// The record it comes from.
    package var source: Source
    /// What handled it (`allow-failure`, a `catch`, an `any` another lane
    /// won): shown, but no failure of the run (docs/reports.md).
    package var handledBy: String?
    /// Under `allow-failure`: reported, and the run went on.
    package var allowed: Bool { handledBy == "allow-failure" || handledBy?.hasPrefix("allow-failure ") == true }

    /// The failures of a run, steps and groups in workflow order, the
    /// run's own last; handled ones among them (`handledBy`).
    package static func all(in result: RunResult) -> [ReportFailure] {
        var failures: [ReportFailure] = []
        var ids: Set<String> = []
        for record in result.records where record.status == .failed {
            let failure = record.failure
            failures.append(
                ReportFailure(
                    id: record.id, kind: record.kind, failureKind: failure?.kind ?? .fail,
                    message: failure?.message ?? "failed", source: .step(record),
                    handledBy: record.handledBy))
            ids.insert(record.id)
        }
        for group in result.groups where group.status == .failed {
            guard let failure = group.failure else { continue }
            failures.append(
                ReportFailure(
                    id: group.id, kind: group.kind, failureKind: failure.kind,
                    message: failure.message, source: .group(group), handledBy: group.handledBy))
            ids.insert(group.id)
        }
        if let error = result.error, !ids.contains(error.stepID) {
            failures.append(
                ReportFailure(
                    id: error.stepID, kind: "workflow", failureKind: error.kind,
                    message: error.message, source: .run))
        }
        return failures
    }
}

extension [ReportFailure] {
    /// The failures the workflow did not handle: the run's own.
    package var unhandled: [ReportFailure] { filter { $0.handledBy == nil } }
    /// The failures the workflow handled: shown as warnings.
    package var handled: [ReportFailure] { filter { $0.handledBy != nil } }
}

extension RunResult.Status {
    /// The run's `status` in the JSON and HTML reports (docs/reports.md):
    /// a run `--timeout` stopped is `failed`, its `error` of kind
    /// `timeout` (and exit code 124) saying why; CI scripts test
    /// `status == "failed"`.
    package var reported: String {
        self == .timedOut ? "failed" : rawValue
    }

    /// For people: `timed out`, not `timedOut`.
    package var words: String {
        switch self {
        case .succeeded: return "succeeded"
        case .failed: return "failed"
        case .interrupted: return "interrupted"
        case .timedOut: return "timed out"
        }
    }
}
