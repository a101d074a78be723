import PromiseEngine
import WorkflowLanguage
import WorkflowModel
import WorkflowRun

/// Colors and symbols, or plain text when color is off.
struct ConsoleStyle: Sendable {
    let colored: Bool
    /// Under GitHub Actions (`GITHUB_ACTIONS=true`): a line of foreign
    /// text never reads as a workflow command (`GitHubCommands.defused`).
    var githubActions = false

    func paint(_ text: String, _ code: String) -> String {
        colored ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    func green(_ text: String) -> String { paint(text, "32") }
    func red(_ text: String) -> String { paint(text, "31") }
    func yellow(_ text: String) -> String { paint(text, "33") }
    func dim(_ text: String) -> String { paint(text, "2") }
    func bold(_ text: String) -> String { paint(text, "1") }

    /// `✓`, `✗`, `-`, `⊘` for how a step ended.
    func symbol(_ status: StepStatus) -> String {
        switch status {
        case .succeeded: return green("✓")
        case .upToDate: return green("≡")
        case .failed: return red("✗")
        case .skipped: return dim("-")
        case .cancelled: return yellow("⊘")
        case .pending, .running: return dim("·")
        }
    }

    /// Text from steps and servers (a failure message, a stderr tail, the
    /// values a `log` shows) as the console prints it: control characters
    /// shown escaped (`\e`, `\x07`, `\r`), a tab a tab, each line break (LF,
    /// CR LF) a new line, and under GitHub Actions no line GitHub would
    /// read as a workflow command.
    func foreignLines(_ text: String) -> [String] {
        text.escapingControlCharacters(keepingLines: true).split(separator: "\n", omittingEmptySubsequences: false).map { line in
            githubActions ? GitHubCommands.defused(String(line)) : String(line)
        }
    }

    /// The first line of such text that is not empty, escaped the same
    /// way, for a place that shows one line inside another (a table's
    /// message, a retry's line).
    static func foreignLine(_ text: String) -> String {
        text.escapingControlCharacters(keepingLines: true).split(separator: "\n").first.map(String.init) ?? ""
    }

    /// A color per step for output prefixes, stable for a name.
    func prefix(_ id: String) -> String {
        guard colored else { return "[\(id)]" }
        let palette = ["36", "35", "34", "33", "32", "96", "95", "94"]
        var hash: UInt32 = 2_166_136_261
        for byte in id.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return paint("[\(id)]", palette[Int(hash % UInt32(palette.count))])
    }
}
