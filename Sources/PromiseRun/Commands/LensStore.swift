import LanguageServer
import Reports
import RunnerSystem
import WorkflowRun

/// What `promise-run lsp`'s code lens reads of the local store:
/// `--dry-run`'s verdicts, each label's last result as the lens says it,
/// and the store's files whose change refreshes the lenses.
/// See docs/language.md, 'Editors'.
enum LensStore {
    static var store: LocalStore {
        LocalStore(
            verdicts: { Fingerprint.preview($0, currentDirectory: $1) },
            lastResults: { folder in
                let now = WallClock.now()
                return LastResults.load(workflowDirectory: folder).mapValues { title($0, now: now) }
            },
            watched: { folder in [LastResults.path(workflowDirectory: folder), IncrementalStore.folder(workflowDirectory: folder)] },
            patterns: ["**/.promise-run/**"])
    }

    /// `✓ 2.1s, 3 minutes ago`; `✗ failed after 0.4s, just now`;
    /// `✗ 3 of 20 runs failed, 2 hours ago` (a label inside `foreach`).
    static func title(_ result: LastResult, now: Double) -> String {
        let mark = ConsoleStyle(colored: false).symbol(result.status)
        let ago = self.ago(now - result.finished)
        if result.runs > 1 {
            let runs = Format.count(result.runs)
            return result.failed > 0 ? "✗ \(Format.count(result.failed)) of \(runs) runs failed, \(ago)" : "\(mark) \(runs) runs, \(ago)"
        }
        let duration = Format.seconds(result.duration)
        switch result.status {
        case .succeeded: return "\(mark) \(duration), \(ago)"
        case .upToDate: return "\(mark) up-to-date, \(ago)"
        case .failed: return "\(mark) failed after \(duration), \(ago)"
        case .cancelled: return "\(mark) cancelled after \(duration), \(ago)"
        case .skipped, .pending, .running: return "\(mark) \(result.status.rawValue), \(ago)"
        }
    }

    /// `just now`, `40 seconds ago`, `1 minute ago`, `3 hours ago`, `2 days ago`.
    static func ago(_ seconds: Double) -> String {
        func unit(_ count: Int, _ name: String) -> String { "\(count) \(name)\(count == 1 ? "" : "s") ago" }
        switch seconds {
        case ..<10: return "just now"
        case ..<60: return unit(Int(seconds), "second")
        case ..<3600: return unit(Int(seconds / 60), "minute")
        case ..<86400: return unit(Int(seconds / 3600), "hour")
        default: return unit(Int(seconds / 86400), "day")
        }
    }
}
