import WorkflowModel

/// How many http requests the run has in flight at most: the
/// larger of `--http-connections` and the largest explicit `limit` of a
/// group holding http steps, unless the descriptor limit holds it lower,
/// which the run then says.
/// See docs/language.md, 'Load'.
struct ConnectionCap {
    /// Descriptors kept for everything else (the workflow file, reports,
    /// processes' pipes, the event loop).
    static let reserve = 32

    /// The cap the slots and the transports use.
    let cap: Int
    /// Said before the run starts when something holds a `limit` below
    /// what it names.
    let warning: String?

    init(workflow: Workflow, option: Int, overrides: [String: String], descriptors: Int?) {
        let limit = workflow.largestHTTPLimit(overrides: overrides) ?? 0
        guard limit > option else {
            cap = option
            warning = nil
            return
        }
        guard let descriptors, descriptors - Self.reserve < limit else {
            cap = limit
            warning = nil
            return
        }
        cap = max(option, descriptors - Self.reserve)
        warning =
            "'limit \(limit)' runs at most \(cap) http requests at once: the descriptor limit is \(descriptors) "
            + "(raise it with 'ulimit -n')"
    }
}
