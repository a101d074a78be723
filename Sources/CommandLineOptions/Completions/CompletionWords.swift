import WorkflowModel

/// What the completion scripts offer, read off the option table: the
/// scripts spell no option of their own.
enum CompletionWords {
    /// Every name of an option that takes a value.
    static func valueNames(separator: String) -> String {
        Option.valueNames.joined(separator: separator)
    }

    /// A command's options by their long names (`run` when none is given).
    static func options(for command: CommandName) -> String {
        Option.of(command).map(\.spec.long).joined(separator: " ")
    }

    /// The names of the options whose value is a file.
    static func pathNames(separator: String) -> String {
        Option.allCases.filter { if case .path = $0.spec.value { return true } else { return false } }
            .flatMap(\.names).joined(separator: separator)
    }

    /// The names of the options whose value is `FORMAT=PATH`.
    static func prefixedNames(separator: String) -> String {
        Option.allCases.filter { if case .prefixed = $0.spec.value { return true } else { return false } }
            .flatMap(\.names).joined(separator: separator)
    }

    /// The names of the options whose value is free text (nothing to offer).
    static func textNames(separator: String) -> String {
        Option.allCases.filter { if case .text = $0.spec.value { return true } else { return false } }
            .flatMap(\.names).joined(separator: separator)
    }

    /// The options with a fixed set of value words, `--format` aside (its
    /// words depend on the command).
    static var choiceOptions: [Option] {
        Option.allCases.filter { $0 != .format && $0.completionWords != nil }
    }

    /// `--format`'s words for graph, and for the other commands.
    static let graphFormats = GraphOptions.Format.allCases.map(\.rawValue).joined(separator: " ")
    static let textFormats = CheckOptions.Format.allCases.map(\.rawValue).joined(separator: " ")

    /// The command words.
    static func commands(separator: String, including run: Bool = false) -> String {
        CommandName.words.filter { run || $0 != "run" }.joined(separator: separator)
    }

    /// The value-word arms of a shell `case "$prev" in`, one per option:
    /// `NAMES) BODY(WORDS) ;;`.
    static func valueArms(indent: String, _ body: (Option, String) -> String) -> String {
        choiceOptions.map { option in
            indent + option.names.joined(separator: "|") + ") " + body(option, (option.completionWords ?? []).joined(separator: " ")) + " ;;"
        }.joined(separator: "\n")
    }

    /// bash: `--color) COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return ;;`.
    static var bashValueArms: String {
        valueArms(indent: "        ") { option, words in
            "COMPREPLY=($(compgen -W \"\(words)\" -- \"$cur\")); " + (words.hasSuffix("=") ? "compopt -o nospace 2>/dev/null; " : "") + "return"
        }.dropFirst(8).description
    }

    /// zsh: `--color) compadd -- auto always never; return ;;`.
    static var zshValueArms: String {
        valueArms(indent: "    ") { option, words in
            "compadd " + (words.hasSuffix("=") ? "-S '' " : "") + "-- \(words); return"
        }.dropFirst(4).description
    }

    /// fish: one `complete` line per option, with its value words and help.
    static var fishLines: String {
        Option.allCases.map { option in
            var line = "complete -c promise-run"
            if let short = option.spec.short { line += " -s " + short.dropFirst() }
            line += " -l " + option.spec.long.dropFirst(2)
            switch option.spec.value {
            case .none: break
            case .text: line += " -x"
            case .path: line += " -r -F"
            case .choice, .prefixed:
                if option == .format {
                    line +=
                        " -x -a '(if test (__promise_run_command) = graph; " + graphFormats.split(separator: " ").map { "echo \($0); " }.joined()
                        + "else; " + textFormats.split(separator: " ").map { "echo \($0); " }.joined() + "end)'"
                } else {
                    // Each value described by its option (fish reads "VALUE<TAB>DESCRIPTION" lines).
                    line += " -x -a '(printf \"%s\\t" + option.spec.long + "\\n\" " + (option.completionWords ?? []).joined(separator: " ") + ")'"
                }
            }
            return line + " -d '" + fishHelp(option.spec.help) + "'"
        }.joined(separator: "\n")
    }
}

/// An option's help for fish: without its parenthesized asides
/// (`auto (default), always or never` reads `auto, always or never`) and
/// quotes.
private func fishHelp(_ help: String) -> String {
    var text = ""
    var depth = 0
    for character in help {
        if character == "(" {
            depth += 1
            continue
        }
        if character == ")" {
            depth = max(0, depth - 1)
            continue
        }
        if depth == 0 { text.append(character) }
    }
    while text.contains("  ") { text = text.replacing("  ", with: " ") }
    return text.replacing(" ,", with: ",").replacing(" ;", with: ";").replacing("'", with: "").trimmingCharacters(" ;")
}

extension String {
    fileprivate func trimmingCharacters(_ set: String) -> String {
        Substring(self).trimmingCharacters(set)
    }
}

extension Substring {
    fileprivate func trimmingCharacters(_ set: String) -> String {
        var text = self
        while let first = text.first, set.contains(first) { text = text.dropFirst() }
        while let last = text.last, set.contains(last) { text = text.dropLast() }
        return String(text)
    }
}
