import CommandLineOptions
import Glibc
import LanguageServer
import PromiseEngine
import Reports
import RunnerSystem
import WorkflowLanguage
import WorkflowModel
import WorkflowRun

/// The program: parses the arguments, runs the command, returns the exit
/// code. `nonisolated(nonsending)`: it starts on the caller's executor, so
/// a command that never waits (`--version`, `check`, `fmt`) starts no
/// thread pool (2.2 ms for `--version`, 3.0 ms when it hopped to the
/// global executor first). A run still hops (`run` is plainly
/// nonisolated): Dispatch must start its threads before the steps can
/// take every descriptor, or its pool monitor, which opens /proc files,
/// crashes (a run of 60 processes under a limit of 64 descriptors did).
enum Entry {
    nonisolated(nonsending) static func main(_ arguments: [String]) async -> Int32 {
        // What the run looks at, from the first file the arguments name
        // (`--var-file`): a no-op run's record (NoOpRun).
        DependencyJournal.shared.start()
        let parsed = Arguments.parse(arguments)
        var noOp: NoOpRun.Invocation?
        if case .success(.run(let options)) = parsed, let invocation = NoOpRun.invocation(arguments: arguments, options: options) {
            if let code = NoOpRun.show(invocation, options: options) { return code }
            noOp = invocation
        } else {
            _ = DependencyJournal.shared.finish()
        }
        if case .success(.run(let options)) = parsed, !options.dryRun {
            // Entry.run sets what a signal does while the file is read.
        } else {
            SignalWatcher.shared.idle()
        }
        switch parsed {
        case .failure(let error):
            StandardStreams.writeError("promise-run: \(error.message)\n\(HelpText.usage)\nRun 'promise-run \(Option.help.spec.long)' for more.\n")
            return 2
        case .success(.help(let command)):
            StandardStreams.writeOutput(HelpText.help(for: command))
            return 0
        case .success(.version):
            StandardStreams.writeOutput(HelpText.version + "\n")
            return 0
        case .success(.check(let options)):
            return CheckCommand.run(options)
        case .success(.graph(let options)):
            return GraphCommand.run(options)
        case .success(.list(let options)):
            return ListCommand.run(options)
        case .success(.fmt(let options)):
            return FmtCommand.run(options)
        case .success(.completions(let shell)):
            switch shell {
            case .bash: StandardStreams.writeOutput(BashCompletion.script + "\n")
            case .zsh: StandardStreams.writeOutput(ZshCompletion.script + "\n")
            case .fish: StandardStreams.writeOutput(FishCompletion.script + "\n")
            }
            return 0
        case .success(.lsp):
            // A closed pipe to the editor is the end, not a signal.
            signal(SIGPIPE, SIG_IGN)
            // The code lens reads the local store: --dry-run's verdicts, the last results.
            return LanguageServer(output: 1, store: LensStore.store).serve(input: 0)
        case .success(.run(let options)):
            return await run(options, noOp: noOp)
        }
    }

    /// Checks the file first: with errors, or a `--var` naming no
    /// top-level var, nothing runs and the exit code is 2.
    static func run(_ options: RunOptions, noOp: NoOpRun.Invocation? = nil) async -> Int32 {
        // A report that could not be written is found now, not after the run.
        let reportProblems = ReportWriter.problems(
            with: options.reports, option: Option.report.spec.long,
            relativeTo: ProcessEnvironment.currentDirectory())
        guard reportProblems.isEmpty else {
            for problem in reportProblems { StandardStreams.writeError("promise-run: \(problem)\n") }
            StandardStreams.writeError("promise-run: nothing ran\n")
            return 2
        }
        if !options.dryRun { reportEarlyInterrupts(options) }
        // --env-file: into our own environment first, so {{env.NAME}} and
        // every process see it.
        for path in options.envFiles {
            switch EnvFiles.load(path) {
            case .success(let pairs):
                for (name, value) in pairs { setenv(name, value, 1) }
            case .failure(let problem):
                StandardStreams.writeError("promise-run: \(problem)\n")
                return 2
            }
        }
        guard let (workflow, selection) = load(options) else { return 2 }
        if options.dryRun {
            let shown = (selection ?? .ordinary(workflow)).cut(workflow)
            switch await DryRun.cacheVerdicts(shown, options: options) {
            case .success(let cache):
                StandardStreams.writeOutput(DryRun.render(shown, options: options, cache: cache))
                return 0
            case .failure(let error):
                StandardStreams.writeError("promise-run: \(error.message)\n")
                return 2
            }
        }
        // `--metrics-listen` and `--events`: an address that cannot be
        // bound, a file that cannot be written, and nothing runs.
        let liveOutputs: LiveOutputs?
        switch LiveOutputs.open(options) {
        case .success(let made): liveOutputs = made
        case .failure(let error):
            StandardStreams.writeError("promise-run: \(error.message)\n")
            StandardStreams.writeError("promise-run: nothing ran\n")
            return 2
        }
        let code =
            options.watch
            ? await WatchMode.run(workflow, options: options, selection: selection, liveOutputs: liveOutputs)
            : await runWorkflow(workflow, options: options, selection: selection, liveOutputs: liveOutputs, noOp: noOp)
        await liveOutputs?.close()
        return code
    }

    /// Reads and checks the workflow file, its `--var` names and its
    /// targets, printing what is wrong; nil when anything is (`run` exits
    /// 2, `--watch` waits for the next save).
    static func load(_ options: RunOptions) -> (Workflow, TargetSelection?)? {
        let colored = StandardStreams.useColor(options.color)
        guard case .success(let workflow) = CheckCommand.load(options.file, colored: colored) else {
            return nil
        }
        let unknown = WorkflowCompiler.unknownOverrides(options.variables.map(\.name), in: workflow)
        guard unknown.isEmpty else {
            for message in unknown {
                StandardStreams.writeError("promise-run: \(message)\n")
            }
            return nil
        }
        var selection: TargetSelection?
        if !options.targets.isEmpty {
            switch TargetSelection.make(workflow, targets: options.targets) {
            case .success(let made): selection = made
            case .failure(let errors):
                for message in errors.messages { StandardStreams.writeError("promise-run: \(message)\n") }
                return nil
            }
        }
        return (workflow, selection)
    }

    /// A signal while the workflow is read and checked: the reports asked
    /// for are written, saying nothing ran, and the exit is 128 + the
    /// signal (SignalWatcher exits after this).
    private static func reportEarlyInterrupts(_ options: RunOptions) {
        let started = ProcessEnvironment.wallClock()
        let directory = ProcessEnvironment.currentDirectory()
        let name = workflowName(options.file)
        SignalWatcher.shared.checking { signal in
            let signalName = SignalWatcher.name(of: signal)
            StandardStreams.writeError("promise-run: \(signalName) while reading the workflow; nothing ran\n")
            let result = RunResult(
                workflow: name, status: .interrupted,
                error: RunError(stepID: name, kind: .fail, message: "interrupted by \(signalName) before anything ran"),
                records: [], startedAt: started, duration: .zero)
            for problem in ReportWriter.write(result, to: options.reports, relativeTo: directory) {
                StandardStreams.writeError("promise-run: \(problem)\n")
            }
        }
    }

    /// The file name without folder and `.workflow`; `stdin` for `-`.
    static func workflowName(_ path: String) -> String {
        if path == "-" { return "stdin" }
        var name = Substring(path.split(separator: "/").last ?? Substring(path))
        if name.hasSuffix(".workflow"), name.count > 9 { name = name.dropLast(9) }
        return String(name)
    }
}
