import PromiseEngine
import WorkflowModel

/// Splits text into words as a POSIX shell would, without expanding
/// anything: blanks separate words, '...' keeps everything, "..." keeps
/// everything but a backslash before `"`, `\`, `$` or a backquote, and a
/// backslash outside quotes keeps the next character. For `slurm-options`.
package enum ShellWords {
    /// The words, or nil when a quote is not closed.
    package static func split(_ text: String) -> [String]? {
        var words: [String] = []
        var word = ""
        var inWord = false
        var iterator = text.makeIterator()
        while let character = iterator.next() {
            switch character {
            case " ", "\t", "\n":
                if inWord {
                    words.append(word)
                    word = ""
                    inWord = false
                }
            case "'":
                inWord = true
                var closed = false
                while let next = iterator.next() {
                    if next == "'" {
                        closed = true
                        break
                    }
                    word.append(next)
                }
                if !closed { return nil }
            case "\"":
                inWord = true
                var closed = false
                while let next = iterator.next() {
                    if next == "\"" {
                        closed = true
                        break
                    }
                    if next == "\\" {
                        guard let escaped = iterator.next() else { return nil }
                        if !"\"\\$`".contains(escaped) { word.append("\\") }
                        word.append(escaped)
                    } else {
                        word.append(next)
                    }
                }
                if !closed { return nil }
            case "\\":
                inWord = true
                if let escaped = iterator.next() { word.append(escaped) }
            default:
                inWord = true
                word.append(character)
            }
        }
        if inWord { words.append(word) }
        return words
    }
}
