import PromiseEngine

/// The program, off the main actor: parses the arguments, runs the command,
/// returns the exit code.
enum Entry {
    nonisolated static func main(_ arguments: [String]) async -> Int32 {
        switch Arguments.parse(arguments) {
        case .failure(let error):
            StandardStreams.writeError("promise-run: \(error.message)\n\(HelpText.usage)\nRun 'promise-run --help' for more.\n")
            return 2
        case .success(.help):
            StandardStreams.writeOutput(HelpText.help)
            return 0
        case .success(.version):
            StandardStreams.writeOutput(HelpText.version + "\n")
            return 0
        case .success(.check(let options)):
            return CheckCommand.run(options)
        case .success(.graph(let options)):
            return GraphCommand.run(options)
        case .success(.run(let options)):
            return await run(options)
        }
    }

    /// Checks the file first: with errors, or a `--var` naming no
    /// top-level var, nothing runs and the exit code is 2.
    static func run(_ options: RunOptions) async -> Int32 {
        let colored = StandardStreams.useColor(options.color)
        guard case .success(let workflow) = CheckCommand.load(options.file, colored: colored) else {
            return 2
        }
        let unknown = WorkflowCompiler.unknownOverrides(options.variables.map(\.name), in: workflow)
        guard unknown.isEmpty else {
            for message in unknown {
                StandardStreams.writeError("promise-run: \(message)\n")
            }
            return 2
        }
        if options.dryRun {
            StandardStreams.writeOutput(DryRun.render(workflow, options: options))
            return 0
        }
        return await runWorkflow(workflow, options: options)
    }
}
