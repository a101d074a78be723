import PromiseEngine
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
            }
            do {
                try AtomicFile.write(text, to: request.path, relativeTo: directory)
            } catch {
                problems.append("cannot write the \(request.format.rawValue) report to '\(request.path)': \(error)")
            }
        }
        return problems
    }
}
