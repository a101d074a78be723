import PromiseEngine

/// Runs a checked workflow. A placeholder until the executor lands: that
/// work replaces this file.
func runWorkflow(_ workflow: Workflow, options: RunOptions) async -> Int32 {
    StandardStreams.writeError("promise-run: running workflows is not available in this build\n")
    return 2
}
