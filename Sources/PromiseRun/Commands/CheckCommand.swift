import CommandLineOptions
import JSON
import PromiseEngine
import RunnerSystem
import WorkflowLanguage
import WorkflowModel
import WorkflowRun

/// `promise-run check FILE...`: parse and check each file; print every
/// diagnostic; exit 0 when all are fine, 2 otherwise.
enum CheckCommand {
    static func run(_ options: CheckOptions) -> Int32 {
        if options.format == .json { return runJSON(options) }
        let colored = StandardStreams.useColor(options.color)
        let annotate = ProcessEnvironment.current()["GITHUB_ACTIONS"] == "true"
        var failed = false
        for file in options.files {
            if annotate, case .success(let source) = SourceReader.read(file) {
                // GitHub turns these into annotations on the file's lines.
                StandardStreams.writeOutput(CheckDiagnostics.githubAnnotations(compile(source)))
            }
            switch load(file, colored: colored, lookingAtFiles: true) {
            case .success(let workflow):
                if !options.quiet {
                    // Counted on the walk: a list of every node is a copy of each.
                    var steps = 0
                    workflow.forEachNode { if case .step = $0.kind { steps += 1 } }
                    StandardStreams.writeOutput("\(workflow.source.displayPath): ok (\(steps) step\(steps == 1 ? "" : "s"))\n")
                }
            case .failure:
                failed = true
            }
        }
        return failed ? 2 : 0
    }

    /// Compiles, then looks at the files the workflow names: `check`'s
    /// warnings for `sources` patterns that match nothing.
    static func compile(_ source: SourceFile) -> CompilationResult {
        var result = WorkflowCompiler.compile(source)
        let warnings = result.unmatchedSourcesWarnings(currentDirectory: ProcessEnvironment.currentDirectory())
        if !warnings.isEmpty {
            result.diagnostics += warnings
            result.diagnostics.sort { ($0.range?.start ?? 0) < ($1.range?.start ?? 0) }
        }
        return result
    }

    /// Reads and compiles a file, printing problems to standard error;
    /// `lookingAtFiles`: with `check`'s warnings about the files too.
    static func load(_ file: String, colored: Bool, lookingAtFiles: Bool = false) -> Result<Workflow, LoadFailure> {
        let source: SourceFile
        switch SourceReader.read(file) {
        case .success(let read): source = read
        case .failure(let error):
            StandardStreams.writeError("promise-run: \(error.message)\n")
            return .failure(LoadFailure())
        }
        let result = lookingAtFiles ? compile(source) : WorkflowCompiler.compile(source)
        if !result.diagnostics.isEmpty {
            StandardStreams.writeError(result.renderedDiagnostics(colored: colored))
        }
        guard let workflow = result.workflow else { return .failure(LoadFailure()) }
        return .success(workflow)
    }

    /// The file could not be read or has errors; the reason was printed.
    struct LoadFailure: Error {}

    /// `check --format json`: every file's diagnostics in one array, for
    /// editors and CI problem matchers; nothing on standard error.
    private static func runJSON(_ options: CheckOptions) -> Int32 {
        var items: [JSONValue] = []
        var failed = false
        for file in options.files {
            switch SourceReader.read(file) {
            case .success(let source):
                let result = compile(source)
                if result.hasErrors { failed = true }
                items += CheckDiagnostics.json(result)
            case .failure(let error):
                failed = true
                items.append(
                    .object([
                        ("file", .string(file)), ("line", .null), ("column", .null), ("endLine", .null), ("endColumn", .null),
                        ("severity", .string("error")), ("message", .string(error.message)), ("notes", .array([])),
                    ]))
            }
        }
        StandardStreams.writeOutput(JSONValue.array(items).rendered() + "\n")
        return failed ? 2 : 0
    }
}

/// Diagnostics as data: JSON for `check --format json`, `::error`
/// lines for GitHub Actions.
enum CheckDiagnostics {
    static func json(_ result: CompilationResult) -> [JSONValue] {
        let path = result.source.displayPath
        func file(_ range: SourceRange?) -> String {
            range.flatMap { result.source.location(of: $0.start).file } ?? path
        }
        func place(_ range: SourceRange?) -> [(String, JSONValue)] {
            guard let range else { return [("line", .null), ("column", .null), ("endLine", .null), ("endColumn", .null)] }
            let start = result.source.location(of: range.start)
            let end = result.source.location(of: range.end)
            return [
                ("line", .integer(start.line)), ("column", .integer(start.column)),
                ("endLine", .integer(end.line)), ("endColumn", .integer(end.column)),
            ]
        }
        return result.diagnostics.map { diagnostic in
            var notes: [JSONValue] = diagnostic.notes.map { note in
                .object([("file", .string(file(note.range)))] + place(note.range) + [("message", .string(note.message))])
            }
            if let range = diagnostic.range, let from = result.source.segment(at: range.start)?.includedFrom {
                // `main.workflow:4`: the include line, a place of its own
                // (editors show notes as related locations).
                var place: [(String, JSONValue)] = [
                    ("file", .null), ("line", .null), ("column", .null), ("endLine", .null),
                    ("endColumn", .null),
                ]
                if let colon = from.lastIndex(of: ":"), let line = Int(from[from.index(after: colon)...]) {
                    place = [
                        ("file", .string(String(from[..<colon]))), ("line", .integer(line)), ("column", .integer(1)),
                        ("endLine", .integer(line)), ("endColumn", .integer(1)),
                    ]
                }
                notes.append(.object(place + [("message", .string("in the file included at \(from)"))]))
            }
            return .object(
                [("file", .string(file(diagnostic.range)))] + place(diagnostic.range) + [
                    ("severity", .string(diagnostic.severity.rawValue)), ("message", .string(diagnostic.message)),
                    ("notes", .array(notes)),
                ])
        }
    }

    /// `::error file=F,line=L,col=C,endLine=..,endColumn=..::message` per
    /// error (`::warning` per warning).
    static func githubAnnotations(_ result: CompilationResult) -> String {
        var text = ""
        for diagnostic in result.diagnostics where diagnostic.severity != .note {
            let file = diagnostic.range.flatMap { result.source.location(of: $0.start).file } ?? result.source.displayPath
            var properties = "file=\(GitHubCommands.escapeProperty(GitHubPaths.annotationPath(file)))"
            if let range = diagnostic.range {
                let start = result.source.location(of: range.start)
                let end = result.source.location(of: range.end)
                properties += ",line=\(start.line),col=\(start.column),endLine=\(end.line),endColumn=\(end.column)"
            }
            var message = diagnostic.message
            for note in diagnostic.notes { message += "\nnote: " + note.message }
            text += "::\(diagnostic.severity == .error ? "error" : "warning") \(properties)::\(GitHubCommands.escapeData(message))\n"
        }
        return text
    }
}
