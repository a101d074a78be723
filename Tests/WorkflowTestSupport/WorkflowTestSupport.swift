package import Foundation
package import Testing
package import WorkflowLanguage
package import WorkflowModel

// Helpers the model's, the language's and the run's tests share: workflow
// text compiled as the command compiles it.

/// Compiles workflow text as if read from `path`.
package func compile(_ text: String, path: String = "test.workflow") -> CompilationResult {
    WorkflowCompiler.compile(SourceFile(path: path, text: text))
}

/// The rendered diagnostics of workflow text ("" when it is fine).
package func diagnostics(_ text: String, path: String = "test.workflow") -> String {
    compile(text, path: path).renderedDiagnostics()
}

/// Just the messages of the diagnostics (no source lines).
package func messages(_ text: String) -> [String] {
    compile(text).diagnostics.map(\.message)
}

/// The workflow, failing the test when the text has errors.
package func workflow(_ text: String, path: String = "test.workflow", sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> Workflow {
    let result = compile(text, path: path)
    #expect(result.diagnostics.isEmpty, "\(result.renderedDiagnostics())", sourceLocation: sourceLocation)
    return try #require(result.workflow, sourceLocation: sourceLocation)
}

/// Folders of test files, found from this file's path.
package enum Fixtures {
    /// The package's root folder.
    package static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    package static let corpus = packageRoot.appendingPathComponent("Tests/Fixtures/Corpus")
    package static let spec = packageRoot.appendingPathComponent("Tests/Fixtures/Spec")
    package static let workflows = packageRoot.appendingPathComponent("workflows")

    /// Files in `folder` ending in `.workflow`, sorted.
    package static func workflowFiles(in folder: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".workflow") }.sorted().map { folder.appendingPathComponent($0) }
    }

    package static func text(_ url: URL) throws -> String {
        try String(contentsOf: url, encoding: .utf8)
    }
}

/// The steps of a block, in order, unwrapping nothing.
package func steps(_ block: Block) -> [Step] {
    block.nodes.compactMap { if case .step(let step) = $0.kind { return step } else { return nil } }
}
