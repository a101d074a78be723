import Glibc
import RunnerSystem
import WorkflowModel
package import WorkflowRun

/// Writes the reports `--report` asked for, each atomically (a temporary
/// file in the same folder, then a rename), so a report is whole or absent.
package enum ReportWriter {
    /// Writes every report; returns the messages of those that failed.
    package static func write(_ result: RunResult, to requests: [ReportRequest], relativeTo directory: String) -> [String] {
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

    /// What would keep a report from being written, found before anything
    /// runs (a CI job must not learn at the end that its JUnit file never
    /// came): a path that is a folder, or under a plain file, or in a
    /// folder promise-run may not write in. One message per problem, each
    /// naming the request as `option` (the command line's `--report`) and its value.
    package static func problems(with requests: [ReportRequest], option: String, relativeTo directory: String) -> [String] {
        var problems: [String] = []
        for request in requests {
            let path = request.path.hasPrefix("/") ? request.path : directory + "/" + request.path
            let named = "\(option) \(request.format.rawValue)=\(request.path)"
            var info = stat()
            if stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
                problems.append("\(named): '\(request.path)' is a folder; name a file in it (\(request.path)/report.\(request.format.fileExtension))")
                continue
            }
            // The nearest folder that exists must be one, and writable
            // (the folders below it are made).
            var folder = path
            while true {
                guard let slash = folder.lastIndex(of: "/") else {
                    folder = "."
                    break
                }
                folder = slash == folder.startIndex ? "/" : String(folder[..<slash])
                if stat(folder, &info) == 0 || folder == "/" { break }
            }
            if stat(folder, &info) == 0, (info.st_mode & S_IFMT) != S_IFDIR {
                problems.append("\(named): '\(folder)' is a file, not a folder, so nothing can be written under it")
            } else if access(folder, W_OK | X_OK) != 0 {
                problems.append("\(named): cannot write in '\(folder)': \(String(cString: strerror(errno)))")
            }
        }
        return problems
    }

    /// Appends the Markdown summary to `$GITHUB_STEP_SUMMARY` (the file
    /// GitHub Actions shows on the run's page); returns the problem, if any.
    package static func appendStepSummary(_ result: RunResult, to path: String) -> String? {
        do {
            try AppendFile.append(MarkdownReport.render(result, forStepSummary: true) + "\n", to: path)
            return nil
        } catch {
            return "cannot append the summary to GITHUB_STEP_SUMMARY: \(error)"
        }
    }

    /// Whether the run's records should keep output tails: some report
    /// will show them.
    package static func keepsOutput(_ reports: [ReportRequest], environment: [String: String]) -> Bool {
        !reports.isEmpty || !(environment["GITHUB_STEP_SUMMARY"] ?? "").isEmpty
    }
}
