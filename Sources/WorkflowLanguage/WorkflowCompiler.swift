import JSON
import PromiseEngine
package import WorkflowModel

/// The result of reading a workflow file: the workflow when it has no
/// errors, and every diagnostic found.
package struct CompilationResult: Sendable {
    package var source: SourceFile
    /// Nil when there are errors.
    package var workflow: Workflow?
    /// Sorted by position in the file.
    package var diagnostics: [Diagnostic]

    package var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }

    /// The diagnostics as text (see `DiagnosticRenderer`).
    package func renderedDiagnostics(colored: Bool = false) -> String {
        DiagnosticRenderer(source: source, colored: colored).render(diagnostics)
    }
}

/// Parse, check and lower: the one entry point from text to a `Workflow`.
package enum WorkflowCompiler {
    /// `overlay`: texts that win over the disk for included files (the
    /// language server's open buffers).
    package static func compile(
        _ original: SourceFile, errorLimit: Int = DiagnosticBag.defaultLimit,
        overlay: [String: [UInt8]] = [:]
    ) -> CompilationResult {
        let (source, file, diagnostics, repeatedLabels) = parseAndCheck(original, errorLimit: errorLimit, overlay: overlay)
        guard !diagnostics.hasErrors else {
            return CompilationResult(source: source, workflow: nil, diagnostics: diagnostics.diagnostics)
        }
        let workflow = Lowering(source: source, repeatedLabels: repeatedLabels).lower(consume file)
        return CompilationResult(source: source, workflow: workflow, diagnostics: diagnostics.diagnostics)
    }

    /// Includes expanded, parsed and checked: what `compile` lowers and
    /// the language server indexes. The diagnostics are sorted.
    /// `overlay`: texts that win over the disk for included files.
    static func parseAndCheck(_ original: SourceFile, errorLimit: Int, overlay: [String: [UInt8]] = [:])
        -> (source: SourceFile, file: SyntaxFile, diagnostics: DiagnosticBag, repeatedLabels: Set<String>)
    {
        var diagnostics = DiagnosticBag(limit: errorLimit)
        // `include` lines bring their files in first (with where each byte came from).
        let (source, includeProblems) = IncludeExpander.expand(original, overlay: overlay)
        for problem in includeProblems {
            diagnostics.error(problem.message, at: problem.range, notes: problem.notes)
        }
        if let invalid = firstInvalidUTF8(source.bytes) {
            diagnostics.error(
                "this byte (0x\(String(source.bytes[invalid], radix: 16, uppercase: true))) is not UTF-8; a workflow file is UTF-8 text: save it as UTF-8",
                at: SourceRange(start: invalid, end: invalid + 1))
        }
        let (file, brokenNames) = Parser.parse(source, diagnostics: &diagnostics)
        var repeatedLabels: Set<String> = []
        if !diagnostics.isFull {
            // The checker's tables are freed before lowering starts.
            var checker = Checker(diagnostics: diagnostics, brokenNames: brokenNames, bytes: source.bytes)
            checker.check(file)
            diagnostics = checker.diagnostics
            repeatedLabels = checker.repeatedLabels
        }
        diagnostics.sort()
        return (source, file, diagnostics, repeatedLabels)
    }

    /// Whether `original` parses (its own text, its `include` lines as
    /// such): what `fmt` needs to lay it out. A file included elsewhere
    /// may use names it does not declare.
    package static func parses(_ original: SourceFile) -> Bool {
        guard firstInvalidUTF8(original.bytes) == nil else { return false }
        // Turns the include lines into comments; their files are not read.
        var diagnostics = DiagnosticBag()
        let (source, _) = IncludeExpander.expand(original, overlay: [:], reading: false)
        _ = Parser.parse(source, diagnostics: &diagnostics)
        return !diagnostics.hasErrors
    }

    /// Checks `--var NAME=VALUE` names against the workflow's top-level
    /// `var` and `secret` declarations; returns one message per unknown name.
    package static func unknownOverrides(_ names: [String], in workflow: Workflow) -> [String] {
        let declared = workflow.variables.map(\.name)
        return names.filter { !declared.contains($0) }.map { name in
            let suggestion = Suggestion.phrase(for: name, among: declared)
            let known = declared.isEmpty ? "it declares none" : "it declares " + declared.map { "'\($0)'" }.joined(separator: ", ")
            return "--var '\(name)' does not name a top-level var of \(workflow.source.displayPath)\(suggestion) (\(known))"
        }
    }
}
