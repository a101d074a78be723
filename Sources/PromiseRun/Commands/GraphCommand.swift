import CommandLineOptions
import PromiseEngine
import WorkflowLanguage
import WorkflowModel
import WorkflowRun

/// `promise-run graph [--format tree|dot|mermaid|json] FILE`: the workflow
/// drawn, nothing run.
enum GraphCommand {
    static func run(_ options: GraphOptions) -> Int32 {
        guard case .success(let workflow) = CheckCommand.load(options.file, colored: StandardStreams.useColor(options.color)) else {
            return 2
        }
        // `--executor`: where process steps that do not say would run.
        let shown = options.executor.map { workflow.withDefaultExecutor($0) } ?? workflow
        // What this run would run: the targets', or an ordinary run's (the
        // `on-demand` steps and groups shown apart).
        switch TargetSelection.make(workflow, targets: options.targets) {
        case .success(let selection):
            StandardStreams.writeOutput(render(selection.cut(shown), as: options.format))
            return 0
        case .failure(let errors):
            for message in errors.messages { StandardStreams.writeError("promise-run: \(message)\n") }
            return 2
        }
    }

    static func render(_ workflow: Workflow, as format: GraphOptions.Format) -> String {
        switch format {
        case .tree: return TreeRenderer().render(workflow)
        case .dot: return DotRenderer().render(workflow)
        case .mermaid: return MermaidRenderer().render(workflow)
        case .json: return JSONRenderer().render(workflow)
        }
    }
}
