import CommandLineOptions
import Glibc
import PromiseEngine
import Reports
import WorkflowLanguage
import WorkflowModel
import WorkflowRun

/// A command line that cannot be understood: one line saying why.
struct UsageError: Error, Equatable {
    var message: String
}

/// Parses the command line by hand (docs/command.md, 'Options'):
/// `--opt value` and `--opt=value`, `-j4`, `--` before a file name that
/// starts with `-`.
enum Arguments {
    /// `arguments` without the program name.
    static func parse(_ arguments: [String]) -> Result<Command, UsageError> {
        do {
            return .success(try parseCommand(arguments))
        } catch {
            return .failure(error)
        }
    }

    /// Options of any command that take a value (to find the command word
    /// among options written before it).
    private static let valueOptions = Set(Option.valueNames)

    private static func parseCommand(_ arguments: [String]) throws(UsageError) -> Command {
        if Option.version.names.contains(where: arguments.contains) { return .version }
        // The command word may come after options: `--color never check f`.
        var commandIndex: Int?
        var firstPositional: Int?
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" { break }
            if argument.hasPrefix("-"), argument != "-" {
                if valueOptions.contains(argument) { index += 1 }
                index += 1
                continue
            }
            firstPositional = index
            if CommandName.words.contains(argument) { commandIndex = index }
            break
        }
        let wantsHelp = Option.help.names.contains(where: arguments.contains)
        guard let commandIndex else {
            if wantsHelp { return .help(nil) }
            if let firstPositional {
                let word = arguments[firstPositional]
                // `promise-run chek f.workflow`: a word that is no file but
                // is close to a command.
                if !word.contains("/"), !word.contains("."), access(word, F_OK) != 0,
                    let command = Suggestion.closest(to: word, among: CommandName.words)
                {
                    throw UsageError(message: "unknown command '\(word)'; did you mean '\(command)'?")
                }
            }
            guard !arguments.isEmpty else { throw UsageError(message: "no workflow file given") }
            return .run(try parseRun(arguments))
        }
        let command = arguments[commandIndex]
        var rest = arguments
        rest.remove(at: commandIndex)
        if wantsHelp { return .help(command == "help" ? nil : command) }
        switch command {
        // `run` is the default command said out loud: for a workflow file
        // named like a command (`promise-run run check`), or for clarity.
        case "run":
            guard !rest.isEmpty else { throw UsageError(message: "run needs a workflow file") }
            return .run(try parseRun(rest))
        case "check": return .check(try parseCheck(rest))
        case "graph": return .graph(try parseGraph(rest))
        case "list": return .list(try parseList(rest))
        case "fmt":
            var options = FmtOptions(files: [])
            var reader = OptionReader(rest)
            while let argument = reader.next() {
                if reader.isPositional(argument) {
                    options.files.append(argument)
                    continue
                }
                switch try reader.option(for: .fmt) {
                case .checkOnly:
                    try reader.noValue(for: argument)
                    options.check = true
                case .color: options.color = try reader.choice(for: argument, ColorMode.self)
                default: throw reader.unknownOption(for: .fmt)
                }
            }
            guard !options.files.isEmpty else { throw UsageError(message: "fmt needs at least one workflow file") }
            return .fmt(options)
        case "lsp":
            var reader = OptionReader(rest)
            while let argument = reader.next() {
                guard !reader.isPositional(argument) else {
                    throw UsageError(message: "unexpected argument '\(argument)': lsp takes none (an editor starts it and talks over stdio)")
                }
                switch try reader.option(for: .lsp) {
                case .stdio: try reader.noValue(for: argument)
                default: throw reader.unknownOption(for: .lsp)
                }
            }
            return .lsp
        case "completions":
            guard let name = rest.first else { throw UsageError(message: "completions needs a shell: bash, zsh or fish") }
            guard let shell = Shell(rawValue: name) else {
                throw UsageError(
                    message: "no completions for '\(name)'\(Suggestion.phrase(for: name, among: Shell.allCases.map(\.rawValue))); "
                        + "the shells are bash, zsh and fish")
            }
            guard rest.count == 1 else { throw UsageError(message: "unexpected argument '\(rest[1])': completions takes one shell") }
            return .completions(shell)
        default:
            let topic = rest.first { !$0.hasPrefix("-") }
            if let topic, !CommandName.words.contains(topic) {
                throw UsageError(
                    message: "no help for '\(topic)'\(Suggestion.phrase(for: topic, among: CommandName.words)); "
                        + "the commands are run, check, graph, list, fmt, completions, lsp")
            }
            return .help(topic)
        }
    }

    private static func parseRun(_ arguments: [String]) throws(UsageError) -> RunOptions {
        var reader = OptionReader(arguments)
        var file: String?
        var options = RunOptions(file: "")
        var outputGiven = false
        while let argument = reader.next() {
            if reader.isPositional(argument) {
                if file == nil {
                    file = argument
                } else {
                    // After the file: targets (labels to cut the run down to).
                    options.targets.append(argument)
                }
                continue
            }
            switch try reader.option(for: .run) {
            case .jobs:
                options.jobs = try reader.integer(for: argument, in: 1...4096)
            case .httpConnections:
                options.httpConnections = try reader.integer(for: argument, in: 1...100_000)
            case .executor:
                options.executor = try reader.choice(for: argument, Placement.ExecutorKind.self)
            case .slurmJobs:
                options.slurmJobs = try reader.integer(for: argument, in: 1...100_000)
            case .keepGoing:
                try reader.noValue(for: argument)
                options.keepGoing = true
            case .timeout:
                options.timeout = try reader.duration(for: argument, examples: "90s, 5m or 1m30s")
            case .variable:
                let text = try reader.value(for: argument)
                guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
                    throw UsageError(message: "\(reader.name) takes NAME=VALUE, not '\(text)'")
                }
                options.variables.append(VariableSetting(String(text[..<equals]), String(text[text.index(after: equals)...])))
            case .report:
                let text = try reader.value(for: argument)
                guard let equals = text.firstIndex(of: "=") else {
                    throw UsageError(message: "\(reader.name) takes FORMAT=PATH (json, junit, html or markdown), not '\(text)'")
                }
                let name = String(text[..<equals])
                let path = String(text[text.index(after: equals)...])
                guard let format = ReportRequest.Format(rawValue: name) else {
                    let suggestion =
                        Suggestion.closest(to: name, among: ReportRequest.Format.allCases.map(\.rawValue))
                        .map { "; did you mean '\($0)'?" } ?? " (json, junit, html or markdown)"
                    throw UsageError(message: "unknown report format '\(name)'\(suggestion)")
                }
                guard !path.isEmpty else { throw UsageError(message: "\(reader.name) \(name)= needs a path") }
                options.reports.append(ReportRequest(format: format, path: path))
            case .reportOutput:
                options.reportOutputKiB = try reader.integer(for: argument, in: 0...1_048_576)
            case .metricsListen:
                options.metricsListen = try reader.value(for: argument)
            case .events:
                options.events = try reader.value(for: argument)
            case .output:
                options.output = try reader.choice(for: argument, OutputMode.self)
                outputGiven = true
            case .color:
                options.color = try reader.choice(for: argument, ColorMode.self)
            case .quiet:
                try reader.noValue(for: argument)
                options.verbosity = .quiet
            case .verbose:
                try reader.noValue(for: argument)
                // `-vv` (or `-v` twice): also what goes over the wire.
                if options.verbosity == .verbose { options.showsWire = true }
                options.verbosity = .verbose
            case .dryRun:
                try reader.noValue(for: argument)
                options.dryRun = true
            case .varFile:
                let path = try reader.value(for: argument)
                options.variables += try VarFile.read(path)
            case .envFile:
                options.envFiles.append(try reader.value(for: argument))
            case .force:
                try reader.noValue(for: argument)
                options.force = true
            case .watch:
                try reader.noValue(for: argument)
                options.watch = true
            case .insecure:
                try reader.noValue(for: argument)
                options.insecure = true
            case .cache:
                let text = try reader.value(for: argument)
                if case .failure(let error) = CacheLocation.parse(text, currentDirectory: "/", token: nil) {
                    throw UsageError(message: "\(reader.name): \(error.message)")
                }
                options.cache = text
            case .cacheReadOnly:
                try reader.noValue(for: argument)
                options.cacheReadOnly = true
            case .cacheTimeout:
                options.cacheTimeout = try reader.duration(for: argument, examples: "10s or 500ms")
            case .httpVersion:
                let text = try reader.value(for: argument)
                guard let version = HTTPVersion(rawValue: text) else {
                    throw UsageError(message: "\(reader.name) takes 1.1 or 2, not '\(text)'")
                }
                options.httpVersion = version
            case .cacert:
                let path = try reader.value(for: argument)
                guard !path.isEmpty else { throw UsageError(message: "\(reader.name) needs the path of a PEM file") }
                options.caCertificate = path
            default:
                throw reader.unknownOption(for: .run)
            }
        }
        guard let file else { throw UsageError(message: "no workflow file given") }
        options.file = file
        // -q shows failures and the final line: no step output either,
        // unless --output asks for it.
        if options.verbosity == .quiet && !outputGiven { options.output = .quiet }
        return options
    }

    private static func parseCheck(_ arguments: [String]) throws(UsageError) -> CheckOptions {
        var reader = OptionReader(arguments)
        var options = CheckOptions(files: [])
        while let argument = reader.next() {
            if reader.isPositional(argument) {
                options.files.append(argument)
                continue
            }
            switch try reader.option(for: .check) {
            case .color: options.color = try reader.choice(for: argument, ColorMode.self)
            case .format: options.format = try reader.choice(for: argument, CheckOptions.Format.self)
            case .quiet:
                try reader.noValue(for: argument)
                options.quiet = true
            default: throw reader.unknownOption(for: .check)
            }
        }
        guard !options.files.isEmpty else { throw UsageError(message: "check needs at least one workflow file") }
        return options
    }

    private static func parseGraph(_ arguments: [String]) throws(UsageError) -> GraphOptions {
        let parsed = try parseFileCommand(.graph, arguments, GraphOptions.Format.self, takesTargets: true)
        return GraphOptions(
            file: parsed.file, format: parsed.format ?? .tree, color: parsed.color, targets: parsed.targets,
            executor: parsed.executor)
    }

    private static func parseList(_ arguments: [String]) throws(UsageError) -> ListOptions {
        let parsed = try parseFileCommand(.list, arguments, ListOptions.Format.self, takesTargets: false)
        return ListOptions(file: parsed.file, format: parsed.format ?? .text, color: parsed.color)
    }

    /// `COMMAND [--format F] [--color WHEN] FILE [TARGET...]` (graph, list).
    private static func parseFileCommand<Format: RawRepresentable & CaseIterable>(
        _ command: CommandName, _ arguments: [String], _ formats: Format.Type, takesTargets: Bool
    ) throws(UsageError) -> (file: String, format: Format?, color: ColorMode, targets: [String], executor: Placement.ExecutorKind?)
    where Format.RawValue == String {
        var reader = OptionReader(arguments)
        var executor: Placement.ExecutorKind?
        var file: String?
        var format: Format?
        var color = ColorMode.auto
        var targets: [String] = []
        while let argument = reader.next() {
            if reader.isPositional(argument) {
                if file == nil {
                    file = argument
                } else if takesTargets {
                    targets.append(argument)
                } else {
                    throw UsageError(message: "unexpected argument '\(argument)': \(command.rawValue) takes one workflow file")
                }
                continue
            }
            switch try reader.option(for: command) {
            case .format: format = try reader.choice(for: argument, Format.self)
            case .color: color = try reader.choice(for: argument, ColorMode.self)
            case .executor: executor = try reader.choice(for: argument, Placement.ExecutorKind.self)
            default: throw reader.unknownOption(for: command)
            }
        }
        guard let file else { throw UsageError(message: "\(command.rawValue) needs a workflow file") }
        return (file, format, color, targets, executor)
    }
}

/// Walks the arguments, splitting `--name=value` and `-j4`.
private struct OptionReader {
    private let arguments: [String]
    private var index = 0
    private var afterDoubleDash = false
    /// The option being read, without an inline value.
    private(set) var name = ""
    private var inlineValue: String?

    init(_ arguments: [String]) {
        // `-vv` is `-v` twice (before `--`).
        var expanded: [String] = []
        expanded.reserveCapacity(arguments.count)
        var afterDoubleDash = false
        for argument in arguments {
            if argument == "--" { afterDoubleDash = true }
            if !afterDoubleDash, let short = Option.verbose.spec.short, argument == short + short.dropFirst() {
                expanded += [short, short]
            } else {
                expanded.append(argument)
            }
        }
        self.arguments = expanded
    }

    mutating func next() -> String? {
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if !afterDoubleDash, argument == "--" {
                afterDoubleDash = true
                continue
            }
            inlineValue = nil
            name = argument
            if !isPositional(argument) {
                if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                    name = String(argument[..<equals])
                    inlineValue = String(argument[argument.index(after: equals)...])
                } else if let short = Option.jobs.spec.short, argument.hasPrefix(short), argument.count > short.count {
                    // `-j4`.
                    name = short
                    inlineValue = String(argument.dropFirst(short.count))
                }
            }
            return argument
        }
        return nil
    }

    /// A file name (or `-`), not an option.
    func isPositional(_ argument: String) -> Bool {
        afterDoubleDash || argument == "-" || !argument.hasPrefix("-")
    }

    mutating func value(for argument: String) throws(UsageError) -> String {
        if let inlineValue { return inlineValue }
        guard index < arguments.count else {
            throw UsageError(message: "\(name) needs a value")
        }
        index += 1
        return arguments[index - 1]
    }

    func noValue(for argument: String) throws(UsageError) {
        if inlineValue != nil { throw UsageError(message: "\(name) takes no value") }
    }

    mutating func integer(for argument: String, in range: ClosedRange<Int>) throws(UsageError) -> Int {
        let text = try value(for: argument)
        guard let number = Int(text), range.contains(number) else {
            throw UsageError(message: "\(name) takes a number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return number
    }

    /// A duration above zero (`90s`, `5m`, `1m30s`); `examples` says what
    /// to write when it is not one.
    mutating func duration(for argument: String, examples: String) throws(UsageError) -> Duration {
        let text = try value(for: argument)
        guard let duration = DurationText.parse(text), duration > .zero else {
            throw UsageError(message: "invalid duration '\(text)' for \(name) (write, for example, \(examples))")
        }
        return duration
    }

    mutating func choice<Choice: RawRepresentable & CaseIterable>(for argument: String, _ type: Choice.Type) throws(UsageError) -> Choice
    where Choice.RawValue == String {
        let text = try value(for: argument)
        guard let choice = Choice(rawValue: text) else {
            let names = Choice.allCases.map(\.rawValue).joined(separator: ", ")
            throw UsageError(message: "\(name) takes one of \(names), not '\(text)'")
        }
        return choice
    }

    /// The option being read, when `command` takes it; nil otherwise
    /// (the caller's `default` then says why).
    func option(for command: CommandName) throws(UsageError) -> Option? {
        guard let option = Option.named(name), option.spec.commands.contains(command) else { return nil }
        return option
    }

    /// The option is not one of `command`'s: another command's, or none.
    func unknownOption(for command: CommandName) -> UsageError {
        if let option = Option.named(name) {
            if option.spec.commands.contains(.run) {
                return UsageError(
                    message: "'\(name)' is an option of running a workflow (promise-run [run] [OPTIONS] FILE); "
                        + "this command does not take it")
            }
            let owners = CommandName.allCases.filter { option.spec.commands.contains($0) }.map(\.rawValue).joined(separator: ", ")
            return UsageError(message: "'\(name)' is an option of \(owners), not of \(command.rawValue)")
        }
        let names = Option.of(command).flatMap(\.names)
        return UsageError(message: "unknown option '\(name)'" + Suggestion.phrase(for: name, among: names))
    }
}
