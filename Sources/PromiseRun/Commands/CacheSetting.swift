import CommandLineOptions
import PromiseEngine
import RunnerSystem
import WorkflowModel
import WorkflowRun

/// The shared cache a run uses: `--cache` wins over
/// `PROMISE_RUN_CACHE`; a token comes from `PROMISE_RUN_CACHE_TOKEN`.
/// See docs/language.md, 'A shared cache'.
enum CacheSetting {
    /// Nil when no cache is named; a failure says what is wrong with the
    /// one that is (exit 2).
    static func make(
        _ options: RunOptions, environment: [String: String], runner: any StepRunner,
        clock: any PromiseClock
    ) -> Result<SharedCache?, CacheLocationError> {
        let named =
            options.cache.map { (text: $0, source: Option.cache.spec.long) }
            ?? environment["PROMISE_RUN_CACHE"].flatMap { $0.isEmpty ? nil : (text: $0, source: "PROMISE_RUN_CACHE") }
        guard let named else { return .success(nil) }
        switch CacheLocation.parse(
            named.text, currentDirectory: ProcessEnvironment.currentDirectory(),
            token: environment["PROMISE_RUN_CACHE_TOKEN"])
        {
        case .success(let location):
            return .success(
                SharedCache(
                    location: location, runner: runner, clock: clock, timeout: options.cacheTimeout,
                    readOnly: options.cacheReadOnly))
        case .failure(var error):
            error.message = "\(named.source): \(error.message)"
            return .failure(error)
        }
    }

    /// The environment steps get: promise-run's own cache credentials taken
    /// out (`PROMISE_RUN_CACHE_TOKEN`, and `PROMISE_RUN_CACHE` when its URL
    /// carries user info), so that no step, script or test a step runs can
    /// read them. A cache URL without credentials is passed on.
    static func withoutCredentials(_ environment: [String: String]) -> [String: String] {
        var scrubbed = environment
        scrubbed["PROMISE_RUN_CACHE_TOKEN"] = nil
        if let url = environment["PROMISE_RUN_CACHE"], let scheme = url.firstRange(of: "://"),
            url[scheme.upperBound...].prefix(while: { $0 != "/" }).contains("@")
        {
            scrubbed["PROMISE_RUN_CACHE"] = nil
        }
        return scrubbed
    }
}
