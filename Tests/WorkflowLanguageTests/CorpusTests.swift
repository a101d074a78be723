import Foundation
import PromiseTestSupport
import Testing
import WorkflowTestSupport

@testable import PromiseEngine
@testable import WorkflowLanguage
@testable import WorkflowModel

/// Each malformed workflow in Tests/Fixtures/Corpus gives exactly the
/// diagnostics in the `.expected` file beside it (what `promise-run check`
/// prints to standard error).
@Suite("Corpus of malformed workflows")
struct CorpusTests {
    static let files = Fixtures.workflowFiles(in: Fixtures.corpus)

    @Test func theCorpusIsLargeEnough() {
        #expect(Self.files.count >= 40)
    }

    @Test(arguments: files)
    func expectedDiagnostics(_ file: URL) throws {
        let text = try Fixtures.text(file)
        let expected = try Fixtures.text(file.deletingPathExtension().appendingPathExtension("expected"))
        let result = compile(text, path: file.lastPathComponent)
        #expect(result.workflow == nil)
        #expect(result.renderedDiagnostics() == expected)
    }
}
