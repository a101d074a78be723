import PromiseEngine

/// One-line descriptions of steps, for names and renderers.
package enum StepSummary {
    /// `sh "make test"` without quotes: `sh make test`.
    package static func describe(_ step: Step) -> String {
        summary(of: step)
    }

    /// A resolved step, the same way: its templates' values shown.
    package static func describe(_ step: ResolvedStep) -> String {
        summary(of: step)
    }

    // Generic, called only here with known types: specialized (a generic
    // function called from another module would run unspecialized).
    private static func summary<Text>(of step: StepModel<Text>.Step) -> String {
        switch step {
        case .shell(let command, _): return "sh " + firstLine(command.displayText)
        case .exec(let arguments, _): return "exec " + arguments.map { firstLine($0.displayText) }.joined(separator: " ")
        case .http(let request):
            // Made once per request under load: appended, not interpolated.
            let method = request.method.rawValue
            let url = request.url.displayText
            var text = "http "
            text.reserveCapacity(6 + method.utf8.count + url.utf8.count)
            text += method
            text += " "
            text += url
            return text
        case .file(let operation): return "file \(operation.name) " + (operation.operands.first.map { firstLine($0.displayText) } ?? "")
        case .sleep(let duration): return "sleep \(DurationText.format(duration))"
        case .log(let message): return "log " + firstLine(message.displayText)
        case .fail(let message): return "fail " + firstLine(message.displayText)
        case .rethrow: return "rethrow"
        }
    }

    package static func firstLine(_ text: String) -> String {
        guard let newline = text.firstIndex(where: \.isNewline) else { return text }
        return String(text[..<newline]) + "…"
    }

    /// Cuts `text` to `count` characters, with an ellipsis.
    package static func truncate(_ text: String, to count: Int) -> String {
        guard text.utf8.count > count, text.count > count else { return text }
        return String(text.prefix(count - 1)) + "…"
    }
}
