import Foundation
import PromiseEngine

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
            let url = URL(fileURLWithPath: request.path, relativeTo: URL(fileURLWithPath: directory, isDirectory: true))
            do {
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(text.utf8).write(to: url, options: .atomic)
            } catch {
                problems.append("cannot write the \(request.format.rawValue) report to '\(request.path)': \(error.localizedDescription)")
            }
        }
        return problems
    }
}
