import PromiseEngine
import WorkflowEngine
import Steps

/// Writes the reports `--report` asked for, each atomically (a temporary
/// file in the same folder, then a rename), so a report is whole or absent.
enum ReportWriter {
    /// Writes every report; returns the messages of those that failed.
    static func write(_ result: RunResult, to requests: [ReportRequest], relativeTo directory: String) -> [String] {
        var problems: [String] = []
        for request in requests {
            let text: String
            switch request.format {
            case .json: text = JSONReport.render(result)
            case .junit: text = JUnitReport.render(result)
            case .html: text = HTMLReport.render(result)
            case .markdown: text = MarkdownReport.render(result)
            }
            do {
                try AtomicFile.write(text, to: request.path, relativeTo: directory)
            } catch {
                problems.append("cannot write the \(request.format.rawValue) report to '\(request.path)': \(error)")
            }
        }
        return problems
    }

    /// Appends the Markdown summary to `$GITHUB_STEP_SUMMARY` (the file
    /// GitHub Actions shows on the run's page); returns the problem, if any.
    static func appendStepSummary(_ result: RunResult, to path: String) -> String? {
        do {
            try AppendFile.append(MarkdownReport.render(result, forStepSummary: true) + "\n", to: path)
            return nil
        } catch {
            return "cannot append the summary to GITHUB_STEP_SUMMARY: \(error)"
        }
    }

    /// Whether the run's records should keep output tails: some report
    /// will show them.
    static func keepsOutput(_ options: RunOptions, environment: [String: String]) -> Bool {
        !options.reports.isEmpty || !(environment["GITHUB_STEP_SUMMARY"] ?? "").isEmpty
    }
}
