import CommandLineOptions
import Glibc
import Reports
import Testing
import WorkflowModel

@testable import PromiseRun

@Suite("Arguments")
struct ArgumentsTests {
    private func parse(_ arguments: String) -> Result<Command, UsageError> {
        Arguments.parse(arguments.split(separator: " ").map(String.init))
    }

    private func usageError(_ arguments: String) -> String? {
        if case .failure(let error) = parse(arguments) { return error.message }
        return nil
    }

    @Test func varFilesAndTLSOptions() throws {
        let path = "/tmp/promise-run-var-file-\(UInt32.random(in: 0...UInt32.max))"
        let text = "# comment\n\nexport token='s3 cret'\nbase=\"http://h\"\nplain = x=y\r\n"
        _ = text.withCString { pointer in
            let file = fopen(path, "w")
            defer { fclose(file) }
            return fputs(pointer, file)
        }
        defer { unlink(path) }
        let command = try parse("--var a=1 --var-file \(path) --var base=last -k --cacert ca.pem ci.workflow").get()
        guard case .run(let options) = command else {
            Issue.record("not a run")
            return
        }
        #expect(options.variables.map(\.name) == ["a", "token", "base", "plain", "base"])
        #expect(options.variables.map(\.value) == ["1", "s3 cret", "http://h", "x=y", "last"])
        #expect(options.variableOverrides["base"] == "last")
        #expect(options.insecure)
        #expect(options.caCertificate == "ca.pem")
        _ = "bad line".withCString { pointer in
            let file = fopen(path, "w")
            defer { fclose(file) }
            return fputs(pointer, file)
        }
        #expect(usageError("--var-file \(path) ci.workflow") == "\(path):1: expected NAME=VALUE, but the line has no '=' after a name")
        #expect(usageError("--var-file /nonexistent/vars ci.workflow")?.hasPrefix("--var-file: ") == true)
    }

    @Test func runWithEveryOption() throws {
        let command = try parse(
            "-j 4 --http-connections=8 --keep-going --timeout 1m30s --var a=1 --var b=x=y --report json=r.json --report=junit=r.xml --output grouped --color=never -v --dry-run ci.workflow"
        ).get()
        var expected = RunOptions(file: "ci.workflow")
        expected.jobs = 4
        expected.httpConnections = 8
        expected.keepGoing = true
        expected.timeout = .seconds(90)
        expected.variables = [VariableSetting("a", "1"), VariableSetting("b", "x=y")]
        expected.reports = [ReportRequest(format: .json, path: "r.json"), ReportRequest(format: .junit, path: "r.xml")]
        expected.output = .grouped
        expected.color = .never
        expected.verbosity = .verbose
        expected.dryRun = true
        #expect(command == .run(expected))
    }

    @Test("--executor and --slurm-jobs are parsed, and options that differ in them differ")
    func executorAndSlurmJobs() throws {
        let command = try parse("--executor slurm --slurm-jobs 8 ci.workflow").get()
        var expected = RunOptions(file: "ci.workflow")
        expected.executor = .slurm
        expected.slurmJobs = 8
        #expect(command == .run(expected))
        var other = expected
        other.executor = .local
        #expect(command != .run(other))
        other = expected
        other.slurmJobs = 9
        #expect(command != .run(other))
    }

    @Test func defaults() throws {
        guard case .run(let options) = try parse("x.workflow").get() else {
            Issue.record("not run")
            return
        }
        #expect(options.jobs == nil)
        #expect(options.httpConnections == 64)
        #expect(options.output == .prefixed)
        #expect(options.color == .auto)
        #expect(options.verbosity == .normal)
        #expect(!options.dryRun && !options.keepGoing)
    }

    @Test func shortFormsAndStandardInput() throws {
        guard case .run(let options) = try parse("-j8 -q -").get() else {
            Issue.record("not run")
            return
        }
        #expect(options.jobs == 8)
        #expect(options.verbosity == .quiet)
        #expect(options.file == "-")
    }

    @Test("-q hides step output unless --output is given, in either order")
    func quietHidesStepOutput() throws {
        guard case .run(let quiet) = try parse("-q f").get() else {
            Issue.record("not run")
            return
        }
        #expect(quiet.output == .quiet)
        guard case .run(let before) = try parse("--output grouped -q f").get() else {
            Issue.record("not run")
            return
        }
        #expect(before.output == .grouped)
        guard case .run(let after) = try parse("-q --output prefixed f").get() else {
            Issue.record("not run")
            return
        }
        #expect(after.output == .prefixed)
    }

    @Test func doubleDashAllowsFileNamesStartingWithADash() throws {
        guard case .run(let options) = try parse("-- -odd.workflow").get() else {
            Issue.record("not run")
            return
        }
        #expect(options.file == "-odd.workflow")
    }

    @Test func laterVarWins() throws {
        guard case .run(let options) = try parse("--var a=1 --var a=2 f").get() else {
            Issue.record("not run")
            return
        }
        #expect(options.variableOverrides == ["a": "2"])
    }

    @Test func subcommands() throws {
        #expect(try parse("check a.workflow b.workflow").get() == .check(CheckOptions(files: ["a.workflow", "b.workflow"])))
        #expect(try parse("check -q --color always a").get() == .check(CheckOptions(files: ["a"], color: .always, quiet: true)))
        #expect(try parse("graph --format dot f").get() == .graph(GraphOptions(file: "f", format: .dot)))
        #expect(try parse("graph f --format=mermaid").get() == .graph(GraphOptions(file: "f", format: .mermaid)))
        #expect(try parse("graph f").get() == .graph(GraphOptions(file: "f", format: .tree)))
    }

    @Test func helpAndVersion() throws {
        #expect(try parse("--help").get() == .help(nil))
        #expect(try parse("-h").get() == .help(nil))
        #expect(try parse("check --help").get() == .help("check"))
        #expect(try parse("--version").get() == .version)
        #expect(try parse("-V").get() == .version)
        #expect(try parse("help").get() == .help(nil))
        #expect(try parse("help graph").get() == .help("graph"))
        #expect(try parse("--color never list f").get() == .list(ListOptions(file: "f", color: .never)))
        #expect(try parse("list --format json f").get() == .list(ListOptions(file: "f", format: .json)))
    }

    @Test func usageErrors() throws {
        #expect(Arguments.parse([]).failureMessage == "no workflow file given")
        #expect(usageError("--jobs") == "--jobs needs a value")
        #expect(usageError("--jobs x f") == "--jobs takes a number from 1 to 4096, not 'x'")
        #expect(usageError("-j 0 f") == "-j takes a number from 1 to 4096, not '0'")
        #expect(usageError("--timeout 10 f") == "invalid duration '10' for --timeout (write, for example, 90s, 5m or 1m30s)")
        #expect(usageError("--var a f") == "--var takes NAME=VALUE, not 'a'")
        #expect(usageError("--var =1 f") == "--var takes NAME=VALUE, not '=1'")
        #expect(usageError("--report pdf=x f") == "unknown report format 'pdf' (json, junit, html or markdown)")
        #expect(usageError("--report json f") == "--report takes FORMAT=PATH (json, junit, html or markdown), not 'json'")
        #expect(usageError("--report jsno=x f") == "unknown report format 'jsno'; did you mean 'json'?")
        #expect(usageError("--output loud f") == "--output takes one of prefixed, grouped, quiet, not 'loud'")
        #expect(usageError("--color=yes f") == "--color takes one of auto, always, never, not 'yes'")
        #expect(usageError("--keep-going=1 f") == "--keep-going takes no value")
        #expect(usageError("--dryrun f") == "unknown option '--dryrun'; did you mean '--dry-run'?")
        #expect(usageError("--frobnicate f") == "unknown option '--frobnicate'")
        if case .run(let options) = try parse("a b c").get() {
            #expect(options.file == "a" && options.targets == ["b", "c"])
        } else {
            Issue.record("a b c: a run with targets")
        }
        #expect(usageError("help nope") == "no help for 'nope'; the commands are run, check, graph, list, fmt, completions, lsp")
        #expect(usageError("check") == "check needs at least one workflow file")
        #expect(usageError("graph") == "graph needs a workflow file")
        #expect(usageError("graph --format svg f") == "--format takes one of tree, dot, mermaid, json, not 'svg'")
        #expect(try parse("graph a b").get() == .graph(GraphOptions(file: "a", format: .tree, color: .auto, targets: ["b"])))
    }

    @Test("the command word is found after every option that takes a value")
    func valueOptionsSkipTheirValue() throws {
        for option in Option.allCases where option.takesValue && option.spec.commands.contains(.run) {
            let value: String
            switch option.spec.value {
            case .choice(let words): value = words[0]
            case .prefixed(let words): value = words[0] + "=r"
            default: value = option == .timeout ? "5s" : "2"
            }
            let parsed = Arguments.parse([option.spec.long, value, "list", "f.workflow"])
            if case .failure(let error) = parsed {
                #expect(error.message.contains("is an option of running a workflow"), "\(option.spec.long): \(error.message)")
            } else if case .success(let command) = parsed, case .list = command {
            } else {
                Issue.record("\(option.spec.long) \(value) list f.workflow: \(parsed)")
            }
        }
    }
}

extension Result where Failure == UsageError {
    var failureMessage: String? {
        if case .failure(let error) = self { return error.message }
        return nil
    }
}
