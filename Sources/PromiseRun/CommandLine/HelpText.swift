import PromiseEngine
import WorkflowRun
import RunnerSystem
import WorkflowModel
import WorkflowLanguage

/// The text of `--help`, `--version` and usage errors.
enum HelpText {
    static let usage = """
        usage: promise-run [run] [OPTIONS] FILE [TARGET...]  run a workflow, or only what TARGETs need
               promise-run list [--format text|json] FILE    the labelled steps and groups
               promise-run check [--format text|json] FILE...  parse and validate only
               promise-run graph [--format tree|dot|mermaid|json] FILE [TARGET...]
               promise-run fmt [--check] FILE...              rewrite files in the canonical layout
               promise-run completions bash|zsh|fish          a shell completion script
               promise-run help [COMMAND] | --help | --version | -V
        """

    static let version = "promise-run \(PromiseRunVersion.current)"

    /// `help COMMAND`, `COMMAND --help`.
    static func help(for command: String?) -> String {
        switch command {
        case "check": return check
        case "graph": return graph
        case "list": return list
        case "fmt": return fmt
        default: return help
        }
    }

    static let check = """
        usage: promise-run check [--format text|json] [--color WHEN] [-q] FILE...

        Parses and checks each workflow file, runs nothing. Errors and warnings
        say file:line:col, show the line, and say what to write instead.

        options:
          --format text|json   text (default), or one JSON array of diagnostics:
                               file, line, column, endLine, endColumn, severity,
                               message, notes (each with its own location)
          --color WHEN         auto (default), always or never
          -q, --quiet          print nothing when every file is fine

        Under GitHub Actions (GITHUB_ACTIONS=true) errors are also printed as
        ::error annotations.

        exit codes: 0 every file is fine (warnings allowed), 2 some file has errors

        """

    static let graph = """
        usage: promise-run graph [--format tree|dot|mermaid|json] FILE [TARGET...]

        Draws the workflow, runs nothing: tree (default), Graphviz dot, Mermaid,
        or JSON. With TARGETs, the graph cut down to what they need.

        examples:
          promise-run graph ci.workflow
          promise-run graph --format dot ci.workflow | dot -Tsvg > ci.svg
          promise-run graph ci.workflow deploy

        """

    static let fmt = """
        usage: promise-run fmt [--check] FILE...

        Rewrites each workflow file in the canonical layout: two spaces per block,
        one statement a line, one space between words, at most one blank line,
        comments kept where they were, a step's attributes in a fixed order
        (desc, timeout, retry, needs, allow-failure, cwd, env, stdin, detach,
        query, header, basic-auth, the body, redirects, save, TLS, expect,
        capture), a group's own attributes first. Strings are kept as written.
        Formatting a formatted file changes nothing. A file with errors is left
        as it is. FILE '-' formats standard input to standard output.

        options:
          --check   rewrite nothing; exit 1 when some file would change (CI)

        """

    static let list = """
        usage: promise-run list [--format text|json] FILE

        The labelled steps and groups of the workflow, in order, indented by
        nesting, each with its kind and its desc: the names a TARGET may take
        (promise-run FILE TARGET...). Labels inside a foreach body run once per
        item and cannot be targets; they are listed with a note.

        """

    static let help = """
        promise-run \(PromiseRunVersion.current): runs workflows of shell commands, HTTP requests and
        file steps, in sequence, in parallel, with retries, timeouts and catch/ensure.

        \(usage)

        'run' may be said or left out ('promise-run run check' runs a file named
        check). FILE may be '-' to read the workflow from standard input. TARGETs are
        labels: only they run, with what comes before them in their chains and
        what they need ('promise-run list FILE' shows the labels).

        options:
          -j, --jobs N                at most N process steps (sh, exec) at once
                                      (default: the number of CPU cores)
              --http-connections N    at most N HTTP requests in flight (default 64)
              --executor local|slurm  where process steps without an 'executor'
                                      attribute run (default local; see
                                      'executor slurm' in docs/language.md §14)
              --slurm-jobs N          at most N Slurm jobs in flight (default 64)
          -k, --insecure              HTTPS steps do not verify the server's
                                      certificate
              --cacert PATH           HTTPS steps trust the authorities in this PEM
                                      file (a step's 'cacert' wins)
              --keep-going            no fail-fast: every parallel group keeps going
              --timeout DURATION      a timeout for the whole workflow (90s, 5m, 1m30s)
              --var NAME=VALUE        override a top-level var (repeatable)
              --var-file PATH         NAME=VALUE lines, as --var (for values that
                                      should not sit on a command line)
              --env-file PATH         load a .env file into the environment first
                                      (repeatable)
              --force                 run steps with 'sources' even when up to date
              --watch                 run again when a source, the file or an include
                                      changes (the file is read again each time);
                                      Ctrl-C to stop
              --report FORMAT=PATH    write a report: json, junit, html or markdown
                                      (repeatable); with GITHUB_STEP_SUMMARY set,
                                      the Markdown summary is appended there too
              --report-output KIB     how much of each process step's stdout and
                                      stderr the reports keep (default 64; 0 none)
              --output MODE           step output: prefixed (default), grouped or quiet
              --color WHEN            auto (default), always or never; NO_COLOR turns
                                      auto off
          -q, --quiet                 only failures and the final line
          -v, --verbose               more output
              --dry-run               print the tree with the values known before
                                      running; run nothing
              --format FORMAT         (graph) tree (default), dot, mermaid or json;
                                      (list, check) text (default) or json
          -h, --help                  this text ('help COMMAND' for one command)
          -V, --version               the version

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
          promise-run --var config=release ci.workflow
          promise-run --dry-run ci.workflow            show what would run
          promise-run check workflows/*.workflow       validate, run nothing
          promise-run graph --format dot ci.workflow | dot -Tsvg > ci.svg

        exit codes:
          0    the workflow succeeded
          1    the workflow failed
          2    bad usage, or the workflow file has errors (nothing ran)
          124  --timeout expired
          130  interrupted by SIGINT (143: SIGTERM), after ensures ran

        """
}
