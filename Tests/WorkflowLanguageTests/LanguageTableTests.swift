import Foundation
import Testing
import WorkflowModel
import WorkflowTestSupport

@testable import WorkflowLanguage

/// The language table is the one list of the language's words: the editor
/// grammars (a TextMate grammar, a Vim syntax file) must know every one of
/// them, and the parser takes exactly the attributes the table gives each
/// step kind.
@Suite("The language table")
struct LanguageTableTests {
    static var words: [String] {
        (LanguageTable.stepKinds + LanguageTable.groupKinds + LanguageTable.declarations + LanguageTable.fileOperations
            + LanguageTable.expectationSubjects + LanguageTable.textPredicates + LanguageTable.valuePredicates + LanguageTable.certificateFields).map(
                \.name)
            + LanguageTable.attributes.map(\.name)
    }

    @Test("the Vim syntax file and the TextMate grammar know every word of the table")
    func grammarsKnowEveryWord() throws {
        let vim = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("editors/vim/syntax/promise-run.vim"), encoding: .utf8)
        // A keyword, or a word Vim cannot take as one, matched whole: `syn match ... "\<contains\>"`.
        let vimWords = Set(
            vim.split(separator: "\n").filter { $0.hasPrefix("syn keyword") }
                .flatMap { $0.split(separator: " ").dropFirst(3).map(String.init) }
        )
        .union(
            vim.split(separator: "\n").filter { $0.hasPrefix("syn match") }.compactMap { line -> String? in
                guard let open = line.range(of: "\"\\<"), let close = line.range(of: "\\>\""), open.upperBound < close.lowerBound
                else { return nil }
                return String(line[open.upperBound..<close.lowerBound])
            })
        let textMate = try String(
            contentsOf: Fixtures.packageRoot.appendingPathComponent("editors/promise-run.tmLanguage.json"),
            encoding: .utf8)
        // The words of the grammar's `(?:a|b|c)` alternatives.
        let alternatives = Set(
            textMate.split(whereSeparator: { "(|)".contains($0) })
                .map { $0.hasPrefix("?:") ? String($0.dropFirst(2)) : String($0) })
        for word in Self.words {
            let inVim = vimWords.contains(word)
            let inTextMate = alternatives.contains(word)
            #expect(inVim, "the Vim syntax file does not know '\(word)'")
            #expect(inTextMate, "the TextMate grammar does not know '\(word)'")
        }
    }

    @Test("both grammars colour every filter of the table inside {{ }}")
    func grammarsKnowEveryFilter() throws {
        let vim = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("editors/vim/syntax/promise-run.vim"), encoding: .utf8)
        let vimFilters = try #require(vim.split(separator: "\n").first { $0.contains("promiseRunFilter") && $0.hasPrefix("syn match") })
        let textMate = try String(
            contentsOf: Fixtures.packageRoot.appendingPathComponent("editors/promise-run.tmLanguage.json"),
            encoding: .utf8)
        let textMateFilters = try #require(textMate.split(separator: "\n").first { $0.contains("\\s*(trim|") })
        for filter in LanguageTable.filters.map(\.name) {
            #expect(
                vimFilters.contains("\\(\(filter)\\|") || vimFilters.contains("\\|\(filter)\\"),
                "the Vim syntax file does not colour the filter '\(filter)'")
            #expect(
                textMateFilters.contains("(\(filter)|") || textMateFilters.contains("|\(filter)|") || textMateFilters.contains("|\(filter))"),
                "the TextMate grammar does not colour the filter '\(filter)'")
        }
    }

    @Test("every attribute the table gives a step kind is accepted there, and one it does not give is refused")
    func parserFollowsTheTable() {
        let examples: [String: String] = ["sh": "sh \"true\"", "exec": "exec \"true\"", "http": "http GET \"http://127.0.0.1:9/\""]
        for (kind, step) in examples {
            for attribute in LanguageTable.attributes where !attribute.takenBy.contains(kind) && attribute.takenBy != ["group"] {
                let found = messages("a: \(step) {\n  \(attribute.name) \"x\"\n}\n")
                #expect(found.contains { $0.contains("'\(attribute.name)'") }, "\(kind) should refuse \(attribute.name): \(found)")
            }
        }
        #expect(Parser.attributeNames(for: "http").contains("header"))
        #expect(!Parser.attributeNames(for: "sh").contains("header"))
        #expect(LanguageTable.doc(of: "env-inputs") != nil)
    }
}
