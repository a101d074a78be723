import Foundation
import Testing

/// The workflows shown in the docs are true, as Rust's doc tests make a
/// crate's examples true: every fenced `workflow` block of the README and
/// docs/ passes `check` (with no warning), and those that need nothing
/// outside this machine run and succeed. A block's fence says what it is:
///
/// - ```` ```workflow ````: checked, then run in an empty folder (exit 0);
/// - ```` ```workflow server ````: checked, then run against the tests'
///   HTTP server on 127.0.0.1 (Tests/Fixtures/http-test-server.py, which
///   lists its routes): the block's `http://127.0.0.1:8080` is replaced by
///   the server's address (exit 0);
/// - ```` ```workflow no-run ````: checked only (it needs make, a service
///   outside this machine, a cluster, files of a project);
/// - ```` ```workflow fragment ````: lines of a step's block (`expect ...`),
///   each checked inside a step of the kind it is for.
///
/// Any other fenced block must be tagged (` ```swift `, ` ```text `) or be
/// command lines, so that no workflow escapes the check untagged. The
/// `expect` and `capture` lines of docs/steps.md's table for Hurl users are
/// checked as fragments too.
@Suite("End to end: the docs' workflows are true")
struct DocsTests {
    static let files = [
        "README.md", "docs/language.md", "docs/cookbook.md", "docs/steps.md", "docs/command.md",
        "docs/reports.md", "docs/engine.md", "docs/architecture.md",
    ]

    struct Block: CustomStringConvertible {
        var file: String
        var line: Int
        var tag: String
        var flags: Set<String>
        var text: String
        var description: String { "\(file):\(line)" }
    }

    /// Every fenced block of a Markdown file, with its tag and flags.
    static func blocks(in file: String) throws -> [Block] {
        let text = try String(contentsOf: Binary.packageRoot.appendingPathComponent(file), encoding: .utf8)
        var blocks: [Block] = []
        var open: Block?
        var lines: [Substring] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            guard line.hasPrefix("```") else {
                if open != nil { lines.append(line) }
                continue
            }
            if var block = open {
                block.text = lines.joined(separator: "\n")
                blocks.append(block)
                open = nil
            } else {
                let words = line.dropFirst(3).split(separator: " ").map(String.init)
                open = Block(file: file, line: index + 1, tag: words.first ?? "", flags: Set(words.dropFirst()), text: "")
                lines = []
            }
        }
        return blocks
    }

    static func workflowBlocks() throws -> [Block] {
        try files.flatMap { try blocks(in: $0) }.filter { $0.tag == "workflow" }
    }

    /// `expect body ...` in an http step, `expect stdout ...` in an sh step.
    static func wrapped(fragmentLine line: Substring) -> String {
        let words = line.split(separator: " ")
        let processWords: Set<Substring> = ["stdout", "stderr", "exit"]
        if words.count > 1, processWords.contains(words[1]) { return "a: sh \"true\" {\n  \(line)\n}\n" }
        return "a: http GET \"http://127.0.0.1:9/\" {\n  \(line)\n}\n"
    }

    @Test("every fenced block is a tagged workflow, tagged otherwise, or command lines")
    func everyBlockIsTagged() async throws {
        let commands = ["promise-run", "swift ", "make", "Sources/", ".package", "source ", "man ", "cd ", "git "]
        for file in Self.files {
            for block in try Self.blocks(in: file) where block.tag.isEmpty {
                let first = block.text.split(separator: "\n").first.map(String.init) ?? ""
                #expect(
                    commands.contains { first.hasPrefix($0) },
                    "\(block): an untagged block that is not a command line; tag it ```workflow (or ```text)")
            }
        }
    }

    @Test("every workflow block of the README and docs/ passes check, with no warning of its own")
    func everyWorkflowChecks() async throws {
        let blocks = try Self.workflowBlocks()
        #expect(blocks.count >= 17, "found \(blocks.count)")
        for block in blocks {
            let sources: [String]
            if block.flags.contains("fragment") {
                sources = block.text.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
                    .map { Self.wrapped(fragmentLine: $0) }
            } else {
                sources = [block.text]
            }
            for source in sources {
                let outcome = try await Binary.run(["check", "--color", "never", "-"], stdin: source)
                #expect(outcome.status == 0, "\(block) does not check:\n\(source)\n\(outcome.stderr)")
                // A project's files (`sources "src/**/*.c"`) are not here:
                // only the workflow's own warnings count.
                let warnings = outcome.stderr.split(separator: "\n").filter { $0.contains("warning:") && !$0.contains("matches no file") }
                #expect(warnings.isEmpty, "\(block) checks with a warning:\n\(outcome.stderr)")
            }
        }
    }

    /// The address a ```` ```workflow server ```` block writes for the
    /// tests' server.
    static let serverAddress = "http://127.0.0.1:8080"

    @Test("the workflow blocks that need nothing outside this machine run and succeed, those marked server against the tests' server")
    func runnableWorkflowsRun() async throws {
        let runnable = try Self.workflowBlocks().filter { $0.flags.isEmpty || $0.flags == ["server"] }
        #expect(!runnable.isEmpty)
        #expect(runnable.contains { $0.flags == ["server"] }, "no block runs against the tests' server")
        for block in runnable {
            let space = try Workspace()
            defer { space.remove() }
            var text = block.text
            if block.flags.contains("server") {
                #expect(text.contains(Self.serverAddress), "\(block) is marked server but does not name \(Self.serverAddress)")
                text = text.replacingOccurrences(of: Self.serverAddress, with: try await TestServers.plain())
            }
            let run = try await space.run(text, ["--timeout", "60s"])
            #expect(run.status == 0, "\(block) did not succeed:\n\(run.stdout)\(run.stderr)")
        }
    }

    @Test("each expect and capture in the right-hand column of docs/steps.md's table for Hurl users passes check")
    func hurlTableChecks() async throws {
        let text = try String(contentsOf: Binary.packageRoot.appendingPathComponent("docs/steps.md"), encoding: .utf8)
        let start = try #require(text.range(of: "### For Hurl users")).upperBound
        let rows = text[start...].split(separator: "\n").drop { !$0.hasPrefix("|") }.prefix { $0.hasPrefix("|") }.dropFirst(2)
        var lines: [String] = []
        for row in rows {
            // `\|` is a | inside a cell.
            let cells = row.replacingOccurrences(of: "\\|", with: "\u{1}").split(separator: "|", omittingEmptySubsequences: false)
            guard cells.count > 2 else { continue }
            let spans = cells[2].split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }
            lines += spans.map { $0.element.replacingOccurrences(of: "\u{1}", with: "|") }
                .filter { $0.hasPrefix("expect ") || $0.hasPrefix("capture ") }
        }
        #expect(lines.count >= 35, "found \(lines.count) in the table")
        for line in lines {
            let outcome = try await Binary.run(["check", "--color", "never", "-"], stdin: Self.wrapped(fragmentLine: Substring(line)))
            #expect(outcome.status == 0, "docs/steps.md's Hurl table: `\(line)` does not check:\n\(outcome.stderr)")
        }
    }

    @Test("every workflow the project ships is in fmt's layout: workflows/ and the docs' workflow blocks (fmt --check -)")
    func everyShippedWorkflowIsFormatted() async throws {
        let folder = Binary.packageRoot.appendingPathComponent("workflows")
        var sources: [(String, String)] = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".workflow") }.sorted()
            .map { ("workflows/" + $0, try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8)) }
        #expect(sources.count >= 7)
        sources += try Self.workflowBlocks().filter { !$0.flags.contains("fragment") }.map { ("\($0)", $0.text + "\n") }
        for (name, text) in sources {
            let outcome = try await Binary.run(["fmt", "--check", "-"], stdin: text)
            #expect(outcome.status == 0, "\(name) is not in fmt's layout (promise-run fmt - gives it):\n\(outcome.stdout)\(outcome.stderr)")
        }
    }
}
