import CommandLineOptions
import PromiseEngine
import Reports
import RunnerSystem
import Steps
import WorkflowLanguage
import WorkflowModel
import WorkflowRun

/// `promise-run --dry-run FILE`: the tree with the values known before
/// running (variables, `--var`, environment) filled in; nothing runs.
enum DryRun {
    static func render(
        _ workflow: Workflow, options: RunOptions,
        environment: @escaping @Sendable (String) -> String? = DryRunValues.processEnvironment,
        cache: (location: String, verdicts: [(id: String, verdict: String)])? = nil
    ) -> String {
        var workflow = options.executor.map { workflow.withDefaultExecutor($0) } ?? workflow
        if let timeout = options.timeout { workflow.timeout = timeout }
        let values = DryRunValues(overrides: options.variableOverrides, environment: environment)
        var header = "dry run: nothing runs; {{...}} is known only while running\n"
        var settings: [String] = []
        if let jobs = options.jobs { settings.append("jobs \(jobs)") }
        let connections = ConnectionCap(
            workflow: workflow, option: options.httpConnections, overrides: options.variableOverrides,
            descriptors: nil
        ).cap
        if connections != 64 {
            settings.append("http-connections \(connections)" + (connections > options.httpConnections ? " (a group's 'limit')" : ""))
        }
        if options.keepGoing { settings.append("keep-going") }
        if options.insecure { settings.append("insecure") }
        if let path = options.caCertificate { settings.append("cacert \(path)") }
        if let version = options.httpVersion { settings.append("http-version \(version.rawValue)") }
        if !settings.isEmpty { header += "options: " + settings.joined(separator: ", ") + "\n" }
        var text = header + TreeRenderer(values: values).render(workflow)
        let verdicts = Fingerprint.preview(workflow, currentDirectory: ProcessEnvironment.currentDirectory())
        if !verdicts.isEmpty {
            let width = verdicts.map(\.id.count).max() ?? 0
            text += "\nsteps with sources" + (options.force ? " (\(Option.force.spec.long): all of them would run)" : "") + ":\n"
            for (id, verdict) in verdicts {
                text += "  " + Format.padded(id, width) + "  " + (options.force ? "would run (\(Option.force.spec.long))" : verdict) + "\n"
            }
        }
        if let cache, !cache.verdicts.isEmpty {
            let width = cache.verdicts.map(\.id.count).max() ?? 0
            text +=
                "\nthe shared cache (\(cache.location))" + (options.force ? ": \(Option.force.spec.long) runs every step, then stores it" : "")
                + ":\n"
            for (id, verdict) in cache.verdicts { text += "  " + Format.padded(id, width) + "  " + verdict + "\n" }
        }
        return text
    }

    /// What the shared cache would give each step with `sources` (nil
    /// without a cache); a failure names a cache that cannot be used.
    static func cacheVerdicts(_ workflow: Workflow, options: RunOptions) async
        -> Result<(location: String, verdicts: [(id: String, verdict: String)])?, CacheLocationError>
    {
        let environment = ProcessEnvironment.current()
        let runner = SystemStepRunner(configuration: StepsConfiguration(insecure: options.insecure, caCertificate: options.caCertificate))
        let made = CacheSetting.make(options, environment: environment, runner: runner, clock: SystemClock.shared)
        guard case .success(let cache?) = made else {
            _ = await runner.shutdown().settled
            if case .failure(let error) = made { return .failure(error) }
            return .success(nil)
        }
        cache.onWarning { message in StandardStreams.writeError("warning: \(message)\n") }
        let verdicts =
            await CachePreview.verdicts(
                workflow, cache: cache, currentDirectory: ProcessEnvironment.currentDirectory(),
                givenEnvironment: !options.envFiles.isEmpty, inherited: environment
            ).settled.value ?? []
        _ = await runner.shutdown().settled
        return .success((cache.location.display, verdicts))
    }
}
