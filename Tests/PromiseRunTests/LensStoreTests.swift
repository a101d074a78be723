import Testing

@testable import PromiseRun
@testable import WorkflowRun

/// How the language server's code lens says a labelled step's last result
/// (`✓ 2.1s, 3 minutes ago`).
/// See docs/language.md, 'Editors'.
@Suite("The code lens's last results")
struct LensStoreTests {
    @Test("each way a step ends, with its duration as the console writes it and how long ago")
    func titles() {
        let now = 1_700_000_000.0
        func title(_ status: StepStatus, _ duration: Double, ago: Double, runs: Int = 1, failed: Int = 0) -> String {
            LensStore.title(LastResult(status: status, duration: duration, finished: now - ago, runs: runs, failed: failed), now: now)
        }
        #expect(title(.succeeded, 2.1, ago: 180) == "✓ 2.1s, 3 minutes ago")
        #expect(title(.succeeded, 0.042, ago: 3) == "✓ 42ms, just now")
        #expect(title(.upToDate, 0, ago: 45) == "≡ up-to-date, 45 seconds ago")
        #expect(title(.failed, 0.4, ago: 7200) == "✗ failed after 400ms, 2 hours ago")
        #expect(title(.cancelled, 75, ago: 60) == "⊘ cancelled after 1m15s, 1 minute ago")
        #expect(title(.succeeded, 1, ago: 86400 * 3, runs: 20) == "✓ 20 runs, 3 days ago")
        #expect(title(.succeeded, 1, ago: 3600, runs: 1200, failed: 3) == "✗ 3 of 1,200 runs failed, 1 hour ago")
        // A clock set back: not "-5 seconds ago".
        #expect(title(.succeeded, 1, ago: -5) == "✓ 1.0s, just now")
    }
}
