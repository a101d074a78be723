import RunnerSystem
import WorkflowModel

/// The text of `--help`, `--version` and usage errors.
package enum HelpText {
    /// The usage lines, after a usage error.
    package static let usage = """
        usage: promise-run [run] [OPTIONS] FILE [TARGET...]  run a workflow, or only what TARGETs need
               promise-run list [\(Option.format.spec.long) text|json] FILE    the labelled steps and groups
               promise-run check [\(Option.format.spec.long) text|json] FILE...  parse and validate only
               promise-run graph [\(Option.format.spec.long) tree|dot|mermaid|json] FILE [TARGET...]
               promise-run fmt [\(Option.checkOnly.spec.long)] FILE...              rewrite files in the canonical layout
               promise-run completions bash|zsh|fish          a shell completion script
               promise-run lsp                                the language server, over stdio (for editors)
               promise-run help [COMMAND] | \(Option.help.spec.long) | \(Option.version.spec.long) | \(Option.version.spec.short ?? "")
        """

    /// `--version`.
    package static let version = "promise-run \(PromiseRunVersion.current)"

    /// `help COMMAND`, `COMMAND --help`.
    package static func help(for command: String?) -> String {
        switch command {
        case "check": return check
        case "graph": return graph
        case "list": return list
        case "fmt": return fmt
        case "lsp": return lsp
        default: return help
        }
    }

    static let check = """
        usage: promise-run check [\(Option.format.spec.long) text|json] [\(Option.color.spec.long) WHEN] [\(Option.quiet.spec.short ?? "")] FILE...

        Parses and checks each workflow file, runs nothing. Errors and warnings
        say file:line:col, show the line, and say what to write instead.

        \(Option.format.spec.long) json gives one JSON array of diagnostics: file, line, column,
        endLine, endColumn, severity, message, notes (each with its own location).

        options:
        \(options(for: .check))

        Under GitHub Actions (GITHUB_ACTIONS=true) errors are also printed as
        ::error annotations.

        exit codes: 0 every file is fine (warnings allowed), 2 some file has errors

        """

    static let graph = """
        usage: promise-run graph [\(Option.format.spec.long) tree|dot|mermaid|json] FILE [TARGET...]

        Draws the workflow, runs nothing: tree (default), Graphviz dot, Mermaid,
        or JSON. With TARGETs, the graph cut down to what they need.

        options:
        \(options(for: .graph))

        examples:
          promise-run graph ci.workflow
          promise-run graph \(Option.format.spec.long) dot ci.workflow | dot -Tsvg > ci.svg
          promise-run graph ci.workflow deploy

        """

    static let lsp = """
        usage: promise-run lsp [\(Option.stdio.spec.long)]

        The language server for workflow files: the Language Server Protocol
        3.17 over standard input and output, for any editor with an LSP client
        (Neovim, VS Code, Helix, Emacs, Zed). It gives the same errors and
        warnings as check while you type, completion (statements, step kinds,
        the attributes of the step at the cursor, labels after needs, and
        after {{: variables, labels, fields and filters), hover, go to
        definition, references and rename of labels and variables, the outline,
        folding, and fmt's layout as formatting.

        An editor starts it; it is not for a terminal. See editors/README.md for
        each editor's setting.

        """

    static let fmt = """
        usage: promise-run fmt [\(Option.checkOnly.spec.long)] FILE...

        Rewrites each workflow file in the canonical layout: two spaces per block,
        one statement a line, one space between words, at most one blank line,
        comments kept where they were, a step's attributes in a fixed order
        (desc, on-demand, timeout, retry, needs, allow-failure, cwd, env, stdin,
        detach, query, header, basic-auth, the body, redirects, save, TLS,
        expect, capture), a group's own attributes first. Strings are kept as
        written. Formatting a formatted file changes nothing. A file with errors
        is left as it is. FILE '-' formats standard input to standard output.

        options:
        \(options(for: .fmt))

        """

    static let list = """
        usage: promise-run list [\(Option.format.spec.long) text|json] FILE

        The labelled steps and groups of the workflow, in order, indented by
        nesting, each with its kind and its desc: the names a TARGET may take
        (promise-run FILE TARGET...). Labels inside a foreach body run once per
        item and cannot be targets; they are listed with a note.

        options:
        \(options(for: .list))

        """

    /// `--help`: the general help.
    package static let help = """
        promise-run \(PromiseRunVersion.current): runs workflows of shell commands, HTTP requests and
        file steps, in sequence, in parallel, with retries, timeouts and catch/ensure.

        \(usage)

        'run' may be said or left out ('promise-run run check' runs a file named
        check). FILE may be '-' to read the workflow from standard input. TARGETs are
        labels: only they run, with what comes before them in their chains and
        what they need ('promise-run list FILE' shows the labels).

        options:
        \(options(for: .run))

        a workflow (ci.workflow):

          workflow "ci"
          var config = "debug"

          build: sh "swift build -c {{config}}" {
            timeout 10m
            retry 1
          }
          parallel limit 4 {
            unit: sh "swift test"
            lint: exec "swift" "format" "lint" "-r" "Sources"
          }
          catch {
            log "failed in {{error.step}}: {{error.message}}"
            rethrow
          }

        examples:
          promise-run ci.workflow                      run it
          promise-run ci.workflow lint unit            run lint and unit, and what they need
          promise-run list ci.workflow                 the labels a target may name
          promise-run \(Option.variable.spec.long) config=release ci.workflow
          promise-run \(Option.dryRun.spec.long) ci.workflow            show what would run
          promise-run check workflows/*.workflow       validate, run nothing
          promise-run graph \(Option.format.spec.long) dot ci.workflow | dot -Tsvg > ci.svg

        exit codes:
          0    the workflow succeeded
          1    the workflow failed
          2    bad usage, or the workflow file has errors (nothing ran)
          124  \(Option.timeout.spec.long) expired
          130  interrupted by SIGINT (143: SIGTERM), after ensures ran

        """

    /// An options section from the option table: `-j, --jobs N` in a
    /// column, the help wrapped beside it.
    package static func options(for command: CommandName) -> String {
        let column = 28
        let width = 78
        var lines: [String] = []
        for option in Option.of(command) {
            var words = option.spec.help.split(separator: " ").map(String.init)
            let head = "  " + option.usage
            // Two spaces at least between an option and its help.
            let fits = head.count <= column - 2
            var line = fits ? head + String(repeating: " ", count: column - head.count) : head
            if !fits {
                lines.append(line)
                line = String(repeating: " ", count: column)
            }
            var first = true
            while !words.isEmpty {
                let word = words.removeFirst()
                if !first, line.count + 1 + word.count > width {
                    lines.append(line)
                    line = String(repeating: " ", count: column) + word
                } else {
                    line += (first ? "" : " ") + word
                }
                first = false
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}
