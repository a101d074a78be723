import PromiseEngine

/// `promise-run check FILE...`: parse and check each file; print every
/// diagnostic; exit 0 when all are fine, 2 otherwise.
enum CheckCommand {
    static func run(_ options: CheckOptions) -> Int32 {
        let colored = StandardStreams.useColor(options.color)
        var failed = false
        for file in options.files {
            switch load(file, colored: colored) {
            case .success(let workflow):
                if !options.quiet {
                    let steps = workflow.allNodes.filter { if case .step = $0.kind { return true } else { return false } }.count
                    StandardStreams.writeOutput("\(workflow.source.displayPath): ok (\(steps) step\(steps == 1 ? "" : "s"))\n")
                }
            case .failure:
                failed = true
            }
        }
        return failed ? 2 : 0
    }

    /// Reads and compiles a file, printing problems to standard error.
    static func load(_ file: String, colored: Bool) -> Result<Workflow, LoadFailure> {
        let source: SourceFile
        switch SourceReader.read(file) {
        case .success(let read): source = read
        case .failure(let error):
            StandardStreams.writeError("promise-run: \(error.message)\n")
            return .failure(LoadFailure())
        }
        let result = WorkflowCompiler.compile(source)
        if !result.diagnostics.isEmpty {
            StandardStreams.writeError(result.renderedDiagnostics(colored: colored))
        }
        guard let workflow = result.workflow else { return .failure(LoadFailure()) }
        return .success(workflow)
    }

    /// The file could not be read or has errors; the reason was printed.
    struct LoadFailure: Error {}
}
