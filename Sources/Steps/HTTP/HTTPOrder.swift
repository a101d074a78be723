import WorkflowModel

/// One `http` step as the client hands it to the event loop: the step and
/// its prepared request in one object, made once, so that what carries it
/// (the closure to the loop, the exchange) holds a reference. Each was a
/// struct of a dozen references copied at every hand-over, about 2,700
/// instructions per request in a run of GETs.
final class HTTPOrder: Sendable {
    let step: ResolvedHTTPRequest
    let prepared: PreparedRequest

    init(step: ResolvedHTTPRequest, prepared: PreparedRequest) {
        self.step = step
        self.prepared = prepared
    }
}
