import PromiseEngine
import WorkflowModel

/// `sh "make test"` without the shell, as GNU make does for recipe lines:
/// a command that is only plain words (no quoting, expansion, redirection,
/// operators, comments or assignments) runs its program directly. `/bin/sh
/// -c` would split it into the same words and, for a single simple command,
/// exec the same program, so the result is the same: same argv, exit code,
/// output, environment and folder, minus one shell start (about half the
/// cost of a short step).
///
/// Anything else, and a first word that is a reserved word or a builtin
/// that behaves differently from the program of the same name (`cd`,
/// `exit`, `echo`, `printf`, `pwd`, ...), goes through the shell as written.
enum ShellFastPath {
    /// The last command split, and its words: the steps of a foreach
    /// mostly run one command, split once.
    private static let last = Lock<(command: String, words: [String]?)?>(nil)

    /// The words of `command` if it can run without a shell, else nil.
    static func words(_ command: String) -> [String]? {
        if let hit = last.withLock({ $0?.command == command ? $0 : nil }) { return hit.words }
        let words = split(command)
        last.withLock { $0 = (command, words) }
        return words
    }

    private static func split(_ command: String) -> [String]? {
        // Bytes, not characters: every byte a plain word may hold is ASCII.
        var words: [String] = []
        var current: [UInt8] = []
        for byte in command.utf8 {
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") {
                if !current.isEmpty {
                    words.append(String(decoding: current, as: UTF8.self))
                    current.removeAll(keepingCapacity: true)
                }
                continue
            }
            guard isPlain(byte) else { return nil }
            current.append(byte)
        }
        if !current.isEmpty { words.append(String(decoding: current, as: UTF8.self)) }
        guard let first = words.first, !ASCIIByte.occurs(UInt8(ascii: "="), in: first), !shellWords.contains(first) else { return nil }
        return words
    }

    /// Bytes with no meaning to a POSIX shell, anywhere in a word.
    private static func isPlain(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "/"), UInt8(ascii: ":"), UInt8(ascii: ","),
            UInt8(ascii: "+"), UInt8(ascii: "@"), UInt8(ascii: "%"), UInt8(ascii: "="):
            return true
        default:
            return false
        }
    }

    /// Reserved words, special builtins, and builtins whose behaviour the
    /// program of the same name does not share.
    static let shellWords: Set<String> = [
        "if", "then", "else", "elif", "fi", "do", "done", "case", "esac", "while", "until", "for", "in",
        "function", "select", "time", "!", "{", "}", "[[", "]]",
        ".", ":", "alias", "bg", "break", "cd", "command", "continue", "echo", "eval", "exec", "exit",
        "export", "fc", "fg", "getopts", "hash", "jobs", "kill", "local", "printf", "pwd", "read",
        "readonly", "return", "set", "shift", "source", "test", "[", "times", "trap", "type", "ulimit",
        "umask", "unalias", "unset", "wait",
    ]
}
