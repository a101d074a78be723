import Foundation
import PromiseTestSupport
import Testing
import WorkflowTestSupport

@testable import PromiseEngine
@testable import WorkflowLanguage
@testable import WorkflowModel
@testable import WorkflowRun

/// The last result of each labelled step (the language server's code lens):
/// what a run records, and `.promise-run/last-results.json`, which the
/// command writes and the language server reads.
@Suite("Last results of labelled steps")
struct LastResultsTests {
    @Test(
        "a run records each labelled step that ran: its status and duration; a foreach's label once with its runs; skipped and unlabelled steps not")
    func recorded() throws {
        let run = ExecutorHarness(
            """
            slow: sh "sleep 2s"
            sh "ok"
            each: foreach n in ["0", "3", "0"] {
              inner: sh "exit {{n}}" {
                allow-failure
              }
            }
            broken: sh "exit 2"
            never: sh "ok"
            """)
        run.clock.advance(by: .seconds(2))
        let results = try #require(run.outcome?.lastResults)
        #expect(results.keys.sorted() == ["broken", "inner", "slow"], "\(results.keys.sorted())")
        let slow = try #require(results["slow"])
        #expect(slow.status == .succeeded && slow.duration == 2 && slow.runs == 1 && slow.failed == 0)
        #expect(abs(slow.finished - Date().timeIntervalSince1970) < 60)
        let inner = try #require(results["inner"])
        #expect(inner.runs == 3 && inner.failed == 1, "\(inner)")
        #expect(results["broken"]?.status == .failed && results["broken"]?.failed == 1)
    }

    @Test("saved beside the workflow and read back; a later run merges in (labels it did not run keep theirs); another format holds nothing")
    func savedAndMerged() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("last-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(LastResults.load(workflowDirectory: folder).isEmpty)
        let first = LastResult(status: .succeeded, duration: 2.125, finished: 1_700_000_000.5)
        LastResults.save(
            ["build": first, "test": LastResult(status: .failed, duration: 0.5, finished: 1_700_000_001, failed: 1)],
            workflowDirectory: folder)
        #expect(
            LastResults.load(workflowDirectory: folder) == [
                "build": first,
                "test": LastResult(status: .failed, duration: 0.5, finished: 1_700_000_001, failed: 1),
            ])
        let again = LastResult(status: .upToDate, duration: 0, finished: 1_700_000_100, runs: 1)
        LastResults.save(["build": again], workflowDirectory: folder)
        let merged = LastResults.load(workflowDirectory: folder)
        #expect(merged["build"] == again && merged["test"]?.status == .failed)
        // Nothing to save writes nothing.
        LastResults.save([:], workflowDirectory: folder)
        #expect(LastResults.load(workflowDirectory: folder).count == 2)
        let path = LastResults.path(workflowDirectory: folder)
        #expect(path == folder + "/.promise-run/last-results.json")
        try #"{"format": "promise-run-last-results/0", "steps": {"build": {"status": "failed", "duration": 1, "finished": 1}}}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        #expect(LastResults.load(workflowDirectory: folder).isEmpty)
        try "{not json".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(LastResults.load(workflowDirectory: folder).isEmpty)
    }
}
