import Glibc
import PromiseEngine
import RunnerSystem
import WorkflowModel

/// A cache behind HTTP(S) (nginx with WebDAV, a Bazel-style remote cache,
/// an object store that takes PUT): `GET BASE/NAME` reads an object (200;
/// 404 is "not there"), `HEAD` asks for one, `PUT` writes one. Requests go
/// through the run's own HTTP transport (TLS, proxies, `--cacert`), never
/// use the run's cookies, and each has `timeout`: a request that takes
/// longer is cancelled and reported as `timeout`. Each asks for
/// `Accept-Encoding: identity`, and what comes is kept as it came (never
/// decoded): an object is the bytes stored, checked by their SHA-256.
struct HTTPCacheStore: CacheStore {
    let base: String
    let location: CacheLocation
    let runner: any StepRunner
    let clock: any PromiseClock
    let timeout: Duration

    private var authorization: (basic: ResolvedBasicAuth?, headers: [NamedText]) {
        if let user = location.user {
            return (ResolvedBasicAuth(user: user, password: location.password ?? ""), [])
        }
        if let token = location.token {
            return (nil, [NamedText(name: "Authorization", value: "Bearer " + token)])
        }
        return (nil, [])
    }

    private static let identity = NamedText(name: "Accept-Encoding", value: "identity")

    /// One request; its result, or a `CacheProblem`.
    /// `limit`: the most bytes a saved body may have; a larger one (said
    /// by its Content-Length or seen as it comes) stops the request.
    private func send(
        _ method: String, _ name: String, body: ResolvedBody = .none, save: String? = nil,
        limit: Int = .max
    ) -> Promise<StepResult> {
        let (basic, credentials) = authorization
        let headers = [Self.identity] + credentials
        let request = ResolvedHTTPRequest(
            method: HTTPMethod(rawValue: method), url: base + "/" + name, headers: headers,
            body: body, save: save,
            // Every status is an answer here (404 is "not there"): no default check.
            expectations: [.status([.range(100...599)])],
            cookies: false, basicAuth: basic)
        let running = Lock<(work: Promise<StepResult>?, tooLarge: Bool)>((nil, false))
        let bound = Int64(limit)
        let transfer: @Sendable (Int64, Int64?) -> Void = { received, expected in
            guard received > bound || (expected ?? 0) > bound else { return }
            running.withLock { $0.tooLarge = true }
            running.withLock { $0.work }?.cancel()
        }
        let work = runner.run(
            .http(request),
            in: StepContext(
                id: "cache", workingDirectory: "/", environment: [:],
                transfer: limit == .max ? nil : transfer))
        running.withLock { $0.work = work }
        let timer = clock.schedule(after: timeout) { work.cancel() }
        let shown = "\(method) \(base)/\(name)"
        let waited = timeout
        return work.derive(
            .inline,
            .outcome { outcome in
                timer.cancel()
                switch outcome {
                case .fulfilled(let result): return .outcome(.fulfilled(result))
                case .cancelled where running.withLock({ $0.tooLarge }):
                    return .outcome(.rejected(CacheProblem(.failed, "\(shown): more than the \(limit) bytes its entry says; refused")))
                case .cancelled:
                    return .outcome(.rejected(CacheProblem(.timeout, "\(shown): no answer within \(DurationText.format(waited))")))
                case .rejected(let error):
                    let failure = error as? StepFailure
                    let kind: CacheProblem.Kind = failure?.kind == .network ? .unreachable : .failed
                    return .outcome(.rejected(CacheProblem(kind, failure?.message ?? "\(shown): \(error)")))
                }
            })
    }

    private static func refused(_ method: String, _ url: String, _ status: Int) -> CacheProblem {
        let why =
            status == 401
            ? " (credentials missing or wrong: the URL's user info, or PROMISE_RUN_CACHE_TOKEN)"
            : status == 403 ? " (not allowed)" : ""
        return CacheProblem(status == 401 || status == 403 ? .refused : .failed, "\(method) \(url): status \(status)\(why)")
    }

    func download(_ name: String, to path: String, limit: Int) -> Promise<Bool> {
        let url = base + "/" + name
        return send("GET", name, save: path, limit: limit).map { result throws -> Bool in
            let status = result.status ?? 0
            if status == 200 { return true }
            unlink(path)
            if status == 404 || status == 410 { return false }
            throw Self.refused("GET", url, status)
        }
    }

    func contains(_ name: String) -> Promise<Bool> {
        let url = base + "/" + name
        return send("HEAD", name).map { result throws -> Bool in
            let status = result.status ?? 0
            if (200..<300).contains(status) { return true }
            if status == 404 || status == 410 { return false }
            throw Self.refused("HEAD", url, status)
        }
    }

    func upload(_ name: String, file path: String) -> Promise<Void> {
        let url = base + "/" + name
        return send("PUT", name, body: .file(path)).map { result throws in
            let status = result.status ?? 0
            guard (200..<300).contains(status) else {
                throw CacheProblem(.refused, Self.refused("PUT", url, status).message)
            }
        }
    }
}
