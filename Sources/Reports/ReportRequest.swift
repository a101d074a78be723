/// `--report FORMAT=PATH`.
package struct ReportRequest: Equatable, Sendable {
    /// A report's format: the word before `=`.
    package enum Format: String, Equatable, Sendable, CaseIterable {
        case json, junit, html, markdown
    }

    /// What to write.
    package var format: Format
    /// Where, as given: absolute, or relative to the folder the run
    /// started in.
    package var path: String

    /// A report of `format` at `path`.
    package init(format: Format, path: String) {
        self.format = format
        self.path = path
    }
}

extension ReportRequest.Format {
    /// The usual ending of such a file.
    package var fileExtension: String {
        switch self {
        case .json: return "json"
        case .junit: return "xml"
        case .html: return "html"
        case .markdown: return "md"
        }
    }
}
