import PromiseEngine
import WorkflowModel

/// Decides whether a finished step succeeded: checks its expectations in
/// the spec's order (a signal, the exit code or status, then the others as
/// written) and takes its captures. The first expectation that fails
/// rejects the step: kind `exit` for `expect exit`, `http` for `expect
/// status`, `signal` for a process a signal ended, `expect` for the rest.
enum ExpectationEvaluator {
    /// The status an http step expects when it has no `expect status`.
    static let defaultStatus = StatusPattern.range(200...399)

    static func checkProcess(
        _ result: inout StepResult, expectations: [ResolvedExpectation],
        captures: [Capture]
    ) throws(StepFailure) {
        if let signal = result.terminatingSignal {
            throw StepFailure(
                .signal,
                "killed by signal \(signal) (\(SignalNames.name(of: signal)))"
                    + Excerpt.processOutput(result), result: result)
        }
        let exitCode = result.exitCode ?? -1
        var sawExit = false
        for case .exit(let codes) in expectations {
            sawExit = true
            guard codes.contains(exitCode) else { throw exitFailure(codes, result) }
        }
        if !sawExit, exitCode != 0 { throw exitFailure([0], result) }
        // Most steps expect an exit code at most, and capture nothing.
        guard captures.isEmpty == false || expectations.count > (sawExit ? 1 : 0) else { return }
        var checker = ResultChecker(result: result, savedBody: nil)
        for expectation in expectations {
            if case .exit = expectation { continue }
            try checker.check(expectation)
        }
        let taken = try checker.capture(captures)
        result.captures = taken.texts
        result.capturedValues = taken.values
    }

    /// `savedTo`: the file the body was streamed into (`save`), if any.
    static func checkHTTP(
        _ result: inout StepResult, expectations: [ResolvedExpectation], captures: [Capture],
        savedTo: String?
    ) throws(StepFailure) {
        let status = result.status ?? 0
        var sawStatus = false
        for case .status(let patterns) in expectations {
            sawStatus = true
            guard patterns.contains(where: { $0.matches(status) }) else {
                throw statusFailure(patterns, result, isDefault: false)
            }
        }
        if !sawStatus, !defaultStatus.matches(status) { throw statusFailure([defaultStatus], result, isDefault: true) }
        // `expect status` at most, and no capture: nothing more to read.
        guard captures.isEmpty == false || expectations.count > (sawStatus ? 1 : 0) else { return }
        var checker = ResultChecker(result: result, savedBody: savedTo)
        for expectation in expectations {
            if case .status = expectation { continue }
            try checker.check(expectation)
        }
        let taken = try checker.capture(captures)
        result.captures = taken.texts
        result.capturedValues = taken.values
    }

    private static func exitFailure(_ codes: [Int], _ result: StepResult) -> StepFailure {
        let got = result.exitCode.map(String.init) ?? "no exit code"
        return StepFailure(
            .exit,
            "expected exit \(alternatives(codes.map(String.init))), got \(got)"
                + Excerpt.processOutput(result), result: result)
    }

    private static func statusFailure(_ patterns: [StatusPattern], _ result: StepResult, isDefault: Bool) -> StepFailure {
        let expected = alternatives(patterns.map(\.description)) + (isDefault ? " (the default)" : "")
        return StepFailure(
            .http, "expected status \(expected), got \(result.status ?? 0)" + Excerpt.body(result),
            result: result)
    }

    /// `0`, `0 or 1`, `200, 201 or 204`.
    static func alternatives(_ values: [String]) -> String {
        guard values.count > 1 else { return values.first ?? "" }
        return values.dropLast().joined(separator: ", ") + " or " + values.last!
    }
}

extension ExpectationEvaluator {
    /// Whether checking these runs a regular expression (`matches`). Such
    /// a check runs off the event loop, and the step settles as cancelled
    /// when asked, even while the expression still runs: a pattern that
    /// backtracks for minutes (`'^(a+)+$'`) never holds the other steps,
    /// `--timeout` or Ctrl-C.
    static func usesPatterns(_ expectations: [ResolvedExpectation], _ captures: [Capture]) -> Bool {
        func pattern(_ predicate: ResolvedTextPredicate) -> Bool {
            if case .matches = predicate.test { return true }
            return false
        }
        for expectation in expectations {
            switch expectation {
            case .text(_, let predicate) where pattern(predicate): return true
            case .header(_, .text(let predicate)) where pattern(predicate): return true
            case .json(_, .matches), .value(_, _, .matches): return true
            default: continue
            }
        }
        return captures.contains { capture in
            switch capture.source {
            case .matches, .headerMatches: return true
            default: return false
            }
        }
    }
}
