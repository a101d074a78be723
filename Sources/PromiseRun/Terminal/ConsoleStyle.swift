import PromiseEngine
import WorkflowRun
import WorkflowModel
import WorkflowLanguage

/// Colors and symbols, or plain text when color is off.
struct ConsoleStyle: Sendable {
    let colored: Bool

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

    /// A color per step for output prefixes, stable for a name.
    func prefix(_ id: String) -> String {
        guard colored else { return "[\(id)]" }
        let palette = ["36", "35", "34", "33", "32", "96", "95", "94"]
        var hash: UInt32 = 2166136261
        for byte in id.utf8 { hash = (hash ^ UInt32(byte)) &* 16777619 }
        return paint("[\(id)]", palette[Int(hash % UInt32(palette.count))])
    }
}
