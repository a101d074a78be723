import Reports
import WorkflowModel

/// The commands that take options.
package enum CommandName: String, CaseIterable, Sendable {
    case run, check, graph, list, fmt, lsp
}

/// A set of commands, as bits: the commands that take an option. A
/// `Set<CommandName>` per option cost every start of promise-run a Swift
/// `Set`'s instantiation and hashing for each row of the table, a fifth of
/// `--version`'s instructions.
package struct CommandSet: Equatable, Sendable, ExpressibleByArrayLiteral {
    private var bits: UInt8 = 0

    /// The commands listed.
    package init(arrayLiteral commands: CommandName...) {
        for command in commands { bits |= Self.bit(command) }
    }

    /// Every command.
    package static let all = CommandSet(bits: ~0)

    private init(bits: UInt8) { self.bits = bits }

    /// Whether `command` is in the set.
    package func contains(_ command: CommandName) -> Bool { bits & Self.bit(command) != 0 }

    private static func bit(_ command: CommandName) -> UInt8 {
        switch command {
        case .run: 1
        case .check: 2
        case .graph: 4
        case .list: 8
        case .fmt: 16
        case .lsp: 32
        }
    }
}

/// Every option of the command line, described once (as
/// swift-argument-parser declares an option once): its names, its value,
/// the commands that take it and its help. Parsing, `--help`, the three
/// completion scripts and the man page's test all read this table; an
/// option's name is spelled nowhere else in the executable.
package enum Option: Int, CaseIterable, Sendable {
    case jobs, httpConnections, executor, slurmJobs, insecure, cacert, httpVersion, keepGoing, timeout, variable, varFile, envFile
    case force, cache, cacheReadOnly, cacheTimeout, watch, report, reportOutput, metricsListen, events, output, color, quiet, verbose, dryRun, format,
        checkOnly, stdio, help, version

    /// What an option's value is, for parsing messages and completions.
    package enum Value: Equatable, Sendable {
        /// A flag.
        case none
        /// A number, a duration, `NAME=VALUE`: nothing to complete.
        case text(String)
        /// A file's path: completed with file names.
        case path(String)
        /// One of these words.
        case choice([String])
        /// `FORMAT=PATH`: the words are completed with `=`.
        case prefixed([String])
    }

    /// One row of the table.
    package struct Spec: Sendable {
        /// `--jobs`.
        package var long: String
        /// `-j`, if it has one.
        package var short: String?
        /// What follows it.
        package var value: Value
        /// The commands that take it.
        package var commands: CommandSet
        /// One sentence; `--help` wraps it.
        package var help: String

        /// A row.
        package init(long: String, short: String? = nil, value: Value, commands: CommandSet, help: String) {
            self.long = long
            self.short = short
            self.value = value
            self.commands = commands
            self.help = help
        }
    }

    /// The option's row, made once for every option (a run reads the
    /// table many times while its arguments are parsed), found by the
    /// option's place in the table.
    package var spec: Spec { Self.specs[rawValue] }

    private static let specs = allCases.map(\.madeSpec)

    private var madeSpec: Spec {
        switch self {
        case .jobs:
            Spec(
                long: "--jobs", short: "-j", value: .text("N"), commands: [.run],
                help: "at most N process steps (sh, exec) at once (default: the number of CPU cores)")
        case .httpConnections:
            Spec(
                long: "--http-connections", value: .text("N"), commands: [.run],
                help: "at most N HTTP requests in flight (default 64); a group's larger 'limit' raises it")
        case .executor:
            Spec(
                long: "--executor", value: .choice(Placement.ExecutorKind.allCases.map(\.rawValue)), commands: [.run, .graph],
                help: "where process steps without an 'executor' attribute run (default local; see 'executor slurm' in docs/language.md)")
        case .slurmJobs:
            Spec(long: "--slurm-jobs", value: .text("N"), commands: [.run], help: "at most N Slurm jobs in flight (default 64)")
        case .insecure:
            Spec(
                long: "--insecure", short: "-k", value: .none, commands: [.run],
                help: "HTTPS steps do not verify the server's certificate")
        case .cacert:
            Spec(
                long: "--cacert", value: .path("PATH"), commands: [.run],
                help: "HTTPS steps trust the authorities in this PEM file (a step's 'cacert' wins)")
        case .httpVersion:
            Spec(
                long: "--http-version", value: .choice(HTTPVersion.allCases.map(\.rawValue)), commands: [.run],
                help: "the HTTP version http steps ask for: 1.1 or 2 (a step's 'http-version' wins)")
        case .keepGoing:
            Spec(long: "--keep-going", value: .none, commands: [.run], help: "no fail-fast: every parallel group keeps going")
        case .timeout:
            Spec(
                long: "--timeout", value: .text("DURATION"), commands: [.run],
                help: "a timeout for the whole workflow (90s, 5m, 1m30s); exit 124 when it expires")
        case .variable:
            Spec(long: "--var", value: .text("NAME=VALUE"), commands: [.run], help: "override a top-level var (repeatable)")
        case .varFile:
            Spec(
                long: "--var-file", value: .path("PATH"), commands: [.run],
                help: "NAME=VALUE lines, as --var (for values that should not sit on a command line)")
        case .envFile:
            Spec(
                long: "--env-file", value: .path("PATH"), commands: [.run],
                help: "load a .env file into the environment first (repeatable)")
        case .force:
            Spec(long: "--force", value: .none, commands: [.run], help: "run steps with 'sources' even when up to date")
        case .cache:
            Spec(
                long: "--cache", value: .text("URL"), commands: [.run],
                help: "a shared cache for steps with 'sources': a folder, file://, or an http(s):// store that takes GET and PUT "
                    + "(default: PROMISE_RUN_CACHE; a token in PROMISE_RUN_CACHE_TOKEN)")
        case .cacheReadOnly:
            Spec(long: "--cache-read-only", value: .none, commands: [.run], help: "read the shared cache, never write it")
        case .cacheTimeout:
            Spec(
                long: "--cache-timeout", value: .text("DURATION"), commands: [.run],
                help: "how long each request to an HTTP cache may take (default 10s); a store that times out is not used again in the run")
        case .watch:
            Spec(
                long: "--watch", value: .none, commands: [.run],
                help: "run again when a source, the file or an include changes (the file is read again each time); Ctrl-C to stop")
        case .report:
            Spec(
                long: "--report", value: .prefixed(ReportRequest.Format.allCases.map(\.rawValue)), commands: [.run],
                help: "write a report: json, junit, html or markdown (repeatable); with GITHUB_STEP_SUMMARY set, "
                    + "the Markdown summary is appended there too")
        case .reportOutput:
            Spec(
                long: "--report-output", value: .text("KIB"), commands: [.run],
                help: "how much of each process step's stdout and stderr the reports keep (default 64; 0 none)")
        case .metricsListen:
            Spec(
                long: "--metrics-listen", value: .text("ADDR"), commands: [.run],
                help: "serve GET /metrics (the Prometheus text format) on ADDR (127.0.0.1:9464) while the run lasts")
        case .events:
            Spec(
                long: "--events", value: .path("PATH"), commands: [.run],
                help: "write one JSON object a line as steps start and end (-: standard output, the console then on standard error)")
        case .output:
            Spec(
                long: "--output", value: .choice(OutputMode.allCases.map(\.rawValue)), commands: [.run],
                help: "step output: prefixed (default), grouped or quiet")
        case .color:
            Spec(
                long: "--color", value: .choice(ColorMode.allCases.map(\.rawValue)), commands: .all,
                help: "auto (default), always or never; NO_COLOR turns auto off")
        case .quiet:
            Spec(
                long: "--quiet", short: "-q", value: .none, commands: [.run, .check],
                help: "only failures and the final line (check: nothing when every file is fine)")
        case .verbose:
            Spec(
                long: "--verbose", short: "-v", value: .none, commands: [.run],
                help: "also a line when each step starts, with what it runs; -vv also each http request and "
                    + "response (start line, headers, 4 KiB of each body), secrets masked, on stderr")
        case .dryRun:
            Spec(
                long: "--dry-run", value: .none, commands: [.run],
                help: "print the tree with the values known before running; run nothing")
        case .format:
            Spec(
                long: "--format", short: "-f", value: .choice(["text", "json", "tree", "dot", "mermaid"]), commands: [.check, .graph, .list],
                help: "(graph) tree (default), dot, mermaid or json; (list, check) text (default) or json")
        case .checkOnly:
            Spec(
                long: "--check", value: .none, commands: [.fmt],
                help: "change nothing; exit 1 and name the files that are not in the canonical layout")
        case .stdio:
            Spec(
                long: "--stdio", value: .none, commands: [.lsp],
                help: "talk over standard input and output (the default and only way; LSP clients add it)")
        case .help:
            Spec(
                long: "--help", short: "-h", value: .none, commands: .all,
                help: "this text ('help COMMAND' for one command)")
        case .version:
            Spec(long: "--version", short: "-V", value: .none, commands: [.run], help: "the version")
        }
    }

    /// Its names, long first.
    package var names: [String] { [spec.long] + (spec.short.map { [$0] } ?? []) }

    /// Whether a value follows it.
    package var takesValue: Bool { spec.value != .none }

    /// The option a name (`--jobs`, `-j`) stands for.
    package static func named(_ name: String) -> Option? {
        byName[name]
    }

    private static let byName: [String: Option] = {
        var byName: [String: Option] = [:]
        for option in allCases {
            for name in option.names where byName[name] == nil { byName[name] = option }
        }
        return byName
    }()

    /// The options of a command, in table order.
    package static func of(_ command: CommandName) -> [Option] {
        allCases.filter { $0.spec.commands.contains(command) }
    }

    /// Every name of every option that takes a value: the command word
    /// after options is found by skipping these with their values.
    package static var valueNames: [String] { allCases.filter(\.takesValue).flatMap(\.names) }

    /// The value words a completion offers for the option, if any.
    package var completionWords: [String]? {
        switch spec.value {
        case .choice(let words): return words
        case .prefixed(let words): return words.map { $0 + "=" }
        case .none, .text, .path: return nil
        }
    }

    /// How `--help` shows the option: `-j, --jobs N`.
    package var usage: String {
        let value: String
        switch spec.value {
        case .none: value = ""
        case .text(let name), .path(let name): value = " " + name
        case .choice(let words): value = " " + (words.count <= 3 ? words.joined(separator: "|") : "FORMAT")
        case .prefixed: value = " FORMAT=PATH"
        }
        return (spec.short.map { $0 + ", " } ?? "    ") + spec.long + value
    }
}
