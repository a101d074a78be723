import Foundation
import Testing

/// The workflows shown in the docs are checked: a reader can copy them.
@Suite("End to end: the docs' workflows check")
struct DocsTests {
    /// The untagged ``` blocks of a Markdown file that are workflows (not
    /// command lines). Tagged blocks (```swift, ```json) are skipped.
    static func workflowBlocks(in file: String) throws -> [String] {
        let text = try String(contentsOf: Binary.packageRoot.appendingPathComponent(file), encoding: .utf8)
        var blocks: [(tag: String, lines: [Substring])] = []
        var open: (tag: String, lines: [Substring])?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            guard line.hasPrefix("```") else {
                open?.lines.append(line)
                continue
            }
            if let block = open {
                blocks.append(block)
                open = nil
            } else {
                open = (String(line.dropFirst(3)), [])
            }
        }
        let commands = ["promise-run", "swift ", "make", "Sources/", ".package"]
        return blocks.filter { $0.tag.isEmpty }.map { $0.lines.joined(separator: "\n") }.filter { body in
            let first = body.split(separator: "\n").first.map(String.init) ?? ""
            return !commands.contains { first.hasPrefix($0) } && !body.isEmpty
        }
    }

    @Test("every workflow in the README and the cookbook passes check", arguments: ["README.md", "docs/cookbook.md"])
    func workflowsCheck(_ file: String) throws {
        let blocks = try Self.workflowBlocks(in: file)
        #expect(blocks.count >= (file == "README.md" ? 1 : 6))
        for block in blocks {
            let outcome = try Binary.run(["check", "-"], stdin: block)
            #expect(outcome.status == 0, "\(file): this block does not check:\n\(block)\n\(outcome.stderr)")
        }
    }
}
