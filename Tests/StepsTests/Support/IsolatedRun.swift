import Foundation
import Glibc
import PromiseEngine
import WorkflowModel

@testable import Steps

/// Set in a test process started by `runIsolated`.
let isIsolatedRun = ProcessInfo.processInfo.environment["STEPS_TEST_ISOLATED"] != nil

/// Runs one test of this binary in a process of its own (for checks that
/// other tests running in parallel would disturb, like counting open
/// descriptors). The test must be `.enabled(if: isIsolatedRun)`.
func runIsolated(_ filter: String) async throws -> (passed: Bool, output: String) {
    guard let me = realpath("/proc/self/exe", nil) else { throw TestServerError(message: "realpath /proc/self/exe failed") }
    defer { free(me) }
    var environment = testEnvironment
    environment["STEPS_TEST_ISOLATED"] = "1"
    let step = ResolvedStep.exec(
        arguments: [String(cString: me), "--testing-library", "swift-testing", "--filter", filter]
            .map { $0 },
        process: ResolvedProcessOptions(expectations: [.exit([0, 1])]))
    let runner = SystemStepRunner()
    let outcome = await runner.run(step, in: StepContext(id: "isolated", workingDirectory: "/", environment: environment)).settled
    guard case .fulfilled(let result) = outcome else { return (false, "\(outcome)") }
    let output = (result.stdout?.text ?? "") + (result.stderr?.text ?? "")
    // One test ran and passed (a filter that matches nothing also exits 0).
    return (result.exitCode == 0 && output.contains("passed") && output.contains("with 1 test"), output)
}
