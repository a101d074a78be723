package import Reports
package import WorkflowModel

/// What the command line asks for.
package enum Command: Equatable {
    /// `[run] [OPTIONS] FILE [TARGET...]`: run a workflow.
    case run(RunOptions)
    /// `check FILE...`.
    case check(CheckOptions)
    /// `graph FILE [TARGET...]`.
    case graph(GraphOptions)
    /// `list FILE`.
    case list(ListOptions)
    /// `completions bash|zsh|fish`: a completion script for the shell.
    case completions(Shell)
    /// `fmt [--check] FILE...`.
    case fmt(FmtOptions)
    /// `lsp`: the language server over stdio.
    case lsp
    /// `help [COMMAND]`, `--help`, `COMMAND --help`: nil for the general help.
    case help(String?)
    /// `--version`, `-V`.
    case version
}

/// How output is colored: `--color auto|always|never`.
package enum ColorMode: String, Equatable, Sendable, CaseIterable {
    case auto, always, never
}

/// How step output is shown: `--output prefixed|grouped|quiet`.
package enum OutputMode: String, Equatable, Sendable, CaseIterable {
    case prefixed, grouped, quiet
}

/// `-q` / `-v`.
package enum Verbosity: Equatable, Sendable {
    case quiet, normal, verbose
}

/// One `--var NAME=VALUE` (or a line of a `--var-file`).
package struct VariableSetting: Equatable, Sendable {
    /// The var's name.
    package var name: String
    /// Its value, as given.
    package var value: String

    /// `NAME=VALUE`.
    package init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// Everything `promise-run [OPTIONS] FILE` was given (`==` compares every
/// option: it is derived).
package struct RunOptions: Equatable, Sendable {
    /// The workflow file; `-` for standard input.
    package var file: String
    /// `promise-run FILE TARGET...`: the labels to cut the run down to.
    package var targets: [String] = []
    /// `--env-file PATH` (repeatable): `.env` files loaded into the
    /// environment before anything runs.
    package var envFiles: [String] = []
    /// `--force`: steps with `sources` run even when up to date.
    package var force = false
    /// `--watch`: run again when a source changes.
    package var watch = false
    /// `-j N`: at most N process steps at once; nil: the number of cores.
    package var jobs: Int?
    /// `--executor local|slurm`: where process steps without an `executor`
    /// attribute run; nil: on this machine.
    package var executor: Placement.ExecutorKind?
    /// `--slurm-jobs N`: at most N Slurm jobs in flight.
    package var slurmJobs = 64
    /// `--http-connections N`.
    package var httpConnections = 64
    /// `--keep-going`: every parallel group keeps going.
    package var keepGoing = false
    /// `--timeout D`: for the whole workflow.
    package var timeout: Duration?
    /// `--var NAME=VALUE`, in order (a later one wins).
    package var variables: [VariableSetting] = []
    /// `--report FORMAT=PATH`, in order.
    package var reports: [ReportRequest] = []
    /// `--report-output N`: KiB of each process step's stdout and stderr
    /// the reports keep (0: none).
    package var reportOutputKiB = 64
    /// `--metrics-listen ADDR`: serve `/metrics` there.
    package var metricsListen: String?
    /// `--events PATH|-`: JSON lines as the run goes.
    package var events: String?
    /// `--output`: how step output is shown.
    package var output = OutputMode.prefixed
    /// `--color`.
    package var color = ColorMode.auto
    /// `-q`, `-v`.
    package var verbosity = Verbosity.normal
    /// `-vv`: each http step's request and response on stderr.
    package var showsWire = false
    /// `--dry-run`: print the tree with known values, run nothing.
    package var dryRun = false
    /// `--insecure`: HTTPS steps do not verify certificates.
    package var insecure = false
    /// `--http-version 1.1|2`: the HTTP version http steps ask for.
    package var httpVersion: HTTPVersion?
    /// `--cacert PATH`: the authorities HTTPS steps trust.
    package var caCertificate: String?
    /// `--cache URL`; nil: `PROMISE_RUN_CACHE`, if set.
    package var cache: String?
    /// `--cache-read-only`: read the cache, never write it.
    package var cacheReadOnly = false
    /// `--cache-timeout D`: for each request to an HTTP cache.
    package var cacheTimeout: Duration = .seconds(10)

    /// The defaults, for `file`.
    package init(file: String) {
        self.file = file
    }

    /// The `--var` values by name (the last one of a name wins).
    package var variableOverrides: [String: String] {
        var overrides: [String: String] = [:]
        for variable in variables { overrides[variable.name] = variable.value }
        return overrides
    }
}

/// `promise-run check FILE...`.
package struct CheckOptions: Equatable, Sendable {
    /// `--format text|json`.
    package enum Format: String, Equatable, Sendable, CaseIterable {
        case text, json
    }

    /// The workflow files to check.
    package var files: [String]
    /// `--color`.
    package var color = ColorMode.auto
    /// `-q`: nothing when every file is fine.
    package var quiet = false
    /// `--format json`: one JSON array of diagnostics on standard output.
    package var format = Format.text

    /// `check` with these options (the defaults for the rest).
    package init(files: [String], color: ColorMode = .auto, quiet: Bool = false, format: Format = .text) {
        self.files = files
        self.color = color
        self.quiet = quiet
        self.format = format
    }
}

/// `promise-run graph [--format F] FILE`.
package struct GraphOptions: Equatable, Sendable {
    /// `--format tree|dot|mermaid|json`.
    package enum Format: String, Equatable, Sendable, CaseIterable {
        case tree, dot, mermaid, json
    }

    /// The workflow file.
    package var file: String
    /// `--format`.
    package var format = Format.tree
    /// `--color`.
    package var color = ColorMode.auto
    /// `graph FILE TARGET...`: the graph cut down to the targets.
    package var targets: [String] = []
    /// `--executor`: where process steps that do not say are shown to run.
    package var executor: Placement.ExecutorKind?

    /// `graph` with these options (the defaults for the rest).
    package init(
        file: String, format: Format = .tree, color: ColorMode = .auto, targets: [String] = [],
        executor: Placement.ExecutorKind? = nil
    ) {
        self.file = file
        self.format = format
        self.color = color
        self.targets = targets
        self.executor = executor
    }
}

/// `promise-run fmt [--check] FILE...`.
package struct FmtOptions: Equatable, Sendable {
    /// The workflow files to rewrite.
    package var files: [String]
    /// Rewrite nothing; exit 1 when a file would change.
    package var check = false
    /// `--color`.
    package var color = ColorMode.auto

    /// `fmt` with these options (the defaults for the rest).
    package init(files: [String], check: Bool = false, color: ColorMode = .auto) {
        self.files = files
        self.check = check
        self.color = color
    }
}

/// The shells `completions` writes scripts for.
package enum Shell: String, Equatable, Sendable, CaseIterable {
    case bash, zsh, fish
}

/// `promise-run list [--format text|json] FILE`.
package struct ListOptions: Equatable, Sendable {
    /// `--format text|json`.
    package enum Format: String, Equatable, Sendable, CaseIterable {
        case text, json
    }

    /// The workflow file.
    package var file: String
    /// `--format`.
    package var format = Format.text
    /// `--color`.
    package var color = ColorMode.auto

    /// `list` with these options (the defaults for the rest).
    package init(file: String, format: Format = .text, color: ColorMode = .auto) {
        self.file = file
        self.format = format
        self.color = color
    }
}

extension CommandName {
    /// Every command word, `help` and `completions` (which take no
    /// option) among them: the parser finds the command by them, and
    /// offers the closest for a word that is none.
    package static let words = ["run", "check", "graph", "list", "fmt", "help", "completions", "lsp"]
}
