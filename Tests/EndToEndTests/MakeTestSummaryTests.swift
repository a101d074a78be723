import Foundation
import Testing

/// `make test` repeats what failed at the end of its output
/// (`.ci/failed-tests`): every failure, and no test that passed.
@Suite("make test's summary of failures")
struct MakeTestSummaryTests {
    @Test("lists failed tests, compiler and XCTest errors; never a passing test whose name says 'error' or 'failed ('")
    func onlyFailures() async throws {
        let log = try Binary.temporaryFolder().appendingPathComponent("test-output.log")
        defer { try? FileManager.default.removeItem(at: log.deletingLastPathComponent()) }
        try Data(
            """
            ✔ Test "bad UTF-8: errors answered with their place" passed after 0.101 seconds.
            ✔ Test "a step that failed (kind exit) is red" passed after 0.2 seconds.
            ✘ Test "x" recorded an issue at A.swift:3:4: Expectation failed
            /a/B.swift:12: error: -[M.C testX] : XCTAssertTrue failed
            Test Case '-[M.C testX]' failed (0.100 seconds).
            Test Case '-[M.C testY]' passed (0.100 seconds).
            /a/C.swift:4:9: error: cannot find 'y' in scope
            error: fatalError

            """.utf8
        ).write(to: log)
        let outcome = try await Binary.runCommand(Binary.packageRoot.appendingPathComponent(".ci/failed-tests").path, [log.path])
        #expect(
            outcome.stdout.split(separator: "\n") == [
                "✘ Test \"x\" recorded an issue at A.swift:3:4: Expectation failed",
                "/a/B.swift:12: error: -[M.C testX] : XCTAssertTrue failed",
                "Test Case '-[M.C testX]' failed (0.100 seconds).",
                "/a/C.swift:4:9: error: cannot find 'y' in scope",
                "error: fatalError",
            ], "\(outcome.stdout)")
    }
}
