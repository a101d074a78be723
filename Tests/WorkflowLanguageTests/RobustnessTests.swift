import Foundation
import PromiseTestSupport
import Testing
import WorkflowTestSupport

@testable import PromiseEngine
@testable import WorkflowLanguage
@testable import WorkflowModel
@testable import WorkflowRun

/// No input crashes or hangs the parser: random and mutated files, a large
/// file of garbage, and very deep nesting all end in diagnostics.
@Suite("Robustness")
struct RobustnessTests {
    /// A small deterministic generator, so failures reproduce.
    typealias Random = SplitMix

    /// Pieces that make mutations likely to reach deep into the grammar.
    static let fragments: [String] = [
        "{", "}", "\"", "'", "\"\"\"", "{{", "}}", "\n", ";", ":", "[", "]", "(", ")", ",", "==", "!=", "=",
        "sh", "http GET", "parallel", "catch", "ensure", "foreach x in", "if", "else", "needs", "timeout 1s",
        "retry 2", "expect json \".a\" ==", "capture c =", "{{a.stdout}}", "{{env.X ?? \"", "| trim", "\\", "#", "é", "\u{0}",
    ]

    static func seeds() -> [String] {
        let folders = [Fixtures.corpus, Fixtures.spec, Fixtures.workflows]
        return folders.flatMap { Fixtures.workflowFiles(in: $0) }.compactMap { try? Fixtures.text($0) }
    }

    /// One random edit: delete, duplicate, insert a fragment or a byte, swap.
    static func mutate(_ bytes: [UInt8], _ random: inout Random) -> [UInt8] {
        var bytes = bytes
        let edits = Int.random(in: 1...4, using: &random)
        for _ in 0..<edits {
            let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &random)
            switch Int.random(in: 0..<5, using: &random) {
            case 0 where !bytes.isEmpty:
                let end = min(bytes.count, position + Int.random(in: 1...12, using: &random))
                bytes.removeSubrange(position..<end)
            case 1 where !bytes.isEmpty:
                let end = min(bytes.count, position + Int.random(in: 1...40, using: &random))
                bytes.insert(contentsOf: bytes[position..<end], at: position)
            case 2:
                let fragment = fragments.randomElement(using: &random)!
                bytes.insert(contentsOf: Array(fragment.utf8), at: position)
            case 3:
                bytes.insert(UInt8.random(in: 0...255, using: &random), at: position)
            default:
                if bytes.count > 1 {
                    let other = Int.random(in: 0..<bytes.count, using: &random)
                    bytes.swapAt(position, other)
                }
            }
        }
        return bytes
    }

    @Test func mutatedFilesGiveAWorkflowOrDiagnostics() {
        let seeds = Self.seeds().map { Array($0.utf8) }
        #expect(seeds.count > 50)
        var random = Random(state: 20_261_122)
        let clock = ContinuousClock()
        let start = clock.now
        var failures = 0
        var accepted = 0
        for index in 0..<3000 {
            let bytes = Self.mutate(seeds[index % seeds.count], &random)
            let result = WorkflowCompiler.compile(SourceFile(path: "fuzz.workflow", bytes: bytes))
            if result.workflow != nil {
                accepted += 1
                // A workflow that passed must render in every format.
                _ = TreeRenderer().render(result.workflow!)
                _ = DotRenderer().render(result.workflow!)
                _ = JSONRenderer().render(result.workflow!)
            } else if result.diagnostics.isEmpty {
                failures += 1
            } else {
                _ = result.renderedDiagnostics()
            }
        }
        #expect(failures == 0, "inputs rejected without a diagnostic")
        #expect(accepted > 0)
        #expect(clock.now - start < .seconds(120))
    }

    @Test func randomBytesGiveDiagnostics() {
        var random = Random(state: 7)
        for _ in 0..<300 {
            let count = Int.random(in: 0...400, using: &random)
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
            let result = WorkflowCompiler.compile(SourceFile(path: "r", bytes: bytes))
            #expect(result.workflow != nil || !result.diagnostics.isEmpty)
        }
    }

    @Test func tenMegabytesOfGarbageEndQuicklyWithBoundedDiagnostics() {
        var random = Random(state: 42)
        let alphabet = Array("abc{}\"'[]();:=!<>#\\ \n\t$@éxyz0123456789-".utf8)
        var bytes = [UInt8]()
        bytes.reserveCapacity(10_000_000)
        for _ in 0..<10_000_000 {
            bytes.append(alphabet[Int(random.next() % UInt64(alphabet.count))])
        }
        let clock = ContinuousClock()
        let start = clock.now
        let result = WorkflowCompiler.compile(SourceFile(path: "garbage", bytes: bytes))
        let elapsed = clock.now - start
        #expect(result.workflow == nil)
        #expect(result.diagnostics.count == DiagnosticBag.defaultLimit + 1)
        #expect(result.diagnostics.last?.message == "too many errors (\(DiagnosticBag.defaultLimit)); stopping here")
        #expect(elapsed < .seconds(10))
    }

    @Test func tenMegabytesOfBlankLinesAreFine() {
        let bytes = [UInt8](repeating: 0x0A, count: 10_000_000)
        let result = WorkflowCompiler.compile(SourceFile(path: "blank", bytes: bytes))
        #expect(result.diagnostics.isEmpty)
        #expect(result.workflow?.body.statements.isEmpty == true)
    }

    @Test func tenThousandNestedBlocksAreAnErrorNotACrash() {
        let text = String(repeating: "sequence {\n", count: 10_000) + "log \"x\"\n" + String(repeating: "}\n", count: 10_000)
        #expect(messages(text) == ["blocks nested too deeply (the limit is \(Parser.maximumDepth))"])
    }

    @Test func tenThousandUnclosedBlocks() {
        let text = String(repeating: "parallel {\n", count: 10_000)
        let messages = messages(text)
        #expect(messages.contains("blocks nested too deeply (the limit is \(Parser.maximumDepth))"))
        #expect(messages.count <= 3)
    }

    @Test func tenThousandNestedStepBlocksAndBrackets() {
        #expect(!messages(String(repeating: "sh \"x\" {", count: 10_000)).isEmpty)
        #expect(!messages("foreach x in " + String(repeating: "[", count: 10_000)).isEmpty)
        #expect(!messages("log \"" + String(repeating: "{{env.A ?? \"", count: 10_000)).isEmpty)
        #expect(!messages(String(repeating: "if \"a\" == \"b\" { log \"x\" } else ", count: 10_000)).isEmpty)
    }

    @Test func manyStatementsOnOneLine() throws {
        let text = Array(repeating: "log \"x\"", count: 20_000).joined(separator: "; ")
        let workflow = try workflow(text)
        #expect(workflow.body.nodes.count == 20_000)
    }
}
