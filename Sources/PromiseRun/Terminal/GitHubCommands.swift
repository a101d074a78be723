import JSON
import WorkflowModel

/// GitHub Actions' workflow commands, described once: promise-run's own
/// annotations (`::error file=F,line=L,title=T::message`, `run`'s and
/// `check`'s) escaped as GitHub's runner unescapes them, and lines of text
/// from steps and servers kept from reading as a command. The runner reads
/// a line as a command when, after its leading whitespace, it starts with
/// `::`; it breaks lines at LF, CR LF and a lone CR.
enum GitHubCommands {
    /// A command's message (after the second `::`): one line, `%`, CR and
    /// LF as `%25`, `%0D` and `%0A` (a CR LF as `%0A`), every other control
    /// character shown escaped (`\e`, `\x07`).
    static func escapeData(_ text: String) -> String {
        text.escapingControlCharacters(keepingLines: true).replacingScalars { scalar in
            switch scalar {
            case "%": "%25"
            case "\r": "%0D"
            case "\n": "%0A"
            default: nil
            }
        }
    }

    /// A property's value (`file=`, `title=`): as a message, and `:` and
    /// `,` as `%3A` and `%2C`.
    static func escapeProperty(_ text: String) -> String {
        escapeData(text).replacingScalars { scalar in
            switch scalar {
            case ":": "%3A"
            case ",": "%2C"
            default: nil
            }
        }
    }

    /// One line of foreign text as printed under GitHub Actions: when it
    /// would start with `::` after its leading whitespace, a `\` goes
    /// before the `::` (`  \::warning::x`), visible, and not a command.
    static func defused(_ line: String) -> String {
        guard let start = line.unicodeScalars.firstIndex(where: { !$0.properties.isWhitespace }),
            line.unicodeScalars[start...].starts(with: "::".unicodeScalars)
        else { return line }
        var marked = line
        marked.unicodeScalars.insert("\\", at: start)
        return marked
    }
}
