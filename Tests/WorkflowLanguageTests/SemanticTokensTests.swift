import Foundation
import Testing
import WorkflowLanguage
import WorkflowTestSupport

/// The semantic tokens of every workflow of the repository, the spec and
/// the corpus: sorted, never overlapping, never across a line break.
@Suite("Semantic tokens")
struct SemanticTokensTests {
    @Test("every workflow: tokens in order, apart, one line each, a comment for each '#' line")
    func everyWorkflow() throws {
        var count = 0
        for folder in ["workflows", "Tests/Fixtures/Spec", "Tests/Fixtures/Corpus"] {
            let url = Fixtures.packageRoot.appendingPathComponent(folder)
            for name in try FileManager.default.contentsOfDirectory(atPath: url.path) where name.hasSuffix(".workflow") {
                let bytes = Array(try Data(contentsOf: url.appendingPathComponent(name)))
                let tokens = SemanticTokens.tokens(of: bytes)
                var end = 0
                for token in tokens {
                    #expect(token.start >= end && token.end > token.start, "\(name): \(token) overlaps or is empty")
                    #expect(!bytes[token.start..<token.end].contains(0x0A), "\(name): \(token) spans a line break")
                    end = token.end
                }
                if String(decoding: bytes, as: UTF8.self).hasPrefix("#") { #expect(tokens.first?.kind == .comment, "\(name)") }
                count += 1
            }
        }
        #expect(count > 60)
    }
}
