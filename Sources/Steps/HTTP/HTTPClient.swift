import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PromiseEngine

/// Runs `http` steps on one URLSession per runner: ephemeral, no cache, no
/// cookies, `httpMaximumConnectionsPerHost` from the configuration, one
/// delegate for every task. The session is made for the first request
/// (loading libcurl costs a run without HTTP steps nothing).
final class HTTPClient: Sendable {
    private let delegate = SessionDelegate()
    private let configuration: StepsConfiguration
    /// The session, made for the first request. No lock is held while
    /// URLSession works (making a task waits for its queue): requests count
    /// themselves in `creating`, and an invalidation that comes meanwhile is
    /// carried out by the last of them, so it still cancels their tasks. No
    /// task is made on an invalidated session (FoundationNetworking would
    /// trap): requests after it are cancelled instead.
    private let state = Locked(SessionState())

    private struct SessionState {
        var session: URLSession?
        var invalidated = false
        var creating = 0
        var pendingInvalidation: Invalidation?
    }

    private enum Invalidation {
        case cancelTasks, finishTasks
    }

    init(configuration: StepsConfiguration) {
        self.configuration = configuration
    }

    private func makeSession() -> URLSession {
        let settings = URLSessionConfiguration.ephemeral
        settings.urlCache = nil
        settings.requestCachePolicy = .reloadIgnoringLocalCacheData
        settings.httpMaximumConnectionsPerHost = max(1, configuration.httpConnections)
        settings.httpShouldSetCookies = false
        settings.httpCookieAcceptPolicy = .never
        settings.httpCookieStorage = nil
        settings.urlCredentialStorage = nil
        settings.httpAdditionalHeaders = ["User-Agent": "promise-run/\(PromiseRunVersion.current)"]
        // URLSession's request timeout is an idle timeout; step deadlines
        // are the executor's, which cancels the request.
        settings.timeoutIntervalForRequest = configuration.httpIdleTimeout.map(Self.seconds) ?? 7 * 24 * 3600
        settings.timeoutIntervalForResource = 7 * 24 * 3600
        let queue = OperationQueue()
        queue.name = "promise-run.http"
        queue.maxConcurrentOperationCount = 1
        return URLSession(configuration: settings, delegate: delegate, delegateQueue: queue)
    }

    func run(_ step: HTTPRequest, in context: StepContext) -> Promise<StepResult> {
        let (promise, resolver) = Promise<StepResult>.pending()
        if resolver.isCancelRequested { return .cancelled() }
        let started = ContinuousClock.now
        let prepared: PreparedRequest
        do {
            prepared = try HTTPRequestBuilder.prepare(step, workingDirectory: context.workingDirectory)
        } catch {
            return Promise(error: error)
        }
        let saveTarget = step.save.map { Paths.resolve($0.literalValue ?? "", against: context.workingDirectory) }
        let settings = HTTPTransfer.Settings(redirectLimit: step.redirects ?? configuration.defaultRedirects,
                                             bodyLimit: configuration.bodyLimit)
        let transfer = HTTPTransfer(step: step, resolver: resolver, settings: settings, saveTarget: saveTarget,
                                    onTransfer: context.transfer, started: started)
        let session: URLSession? = state.withLock { state in
            guard !state.invalidated else { return nil }
            state.creating += 1
            if let session = state.session { return session }
            let session = makeSession()
            state.session = session
            return session
        }
        guard let session else { return .cancelled() }
        let task: URLSessionDataTask
        if let file = prepared.bodyFile {
            task = session.uploadTask(with: prepared.request, fromFile: file)
        } else {
            task = session.dataTask(with: prepared.request)
        }
        delegate.add(transfer, for: task)
        resolver.onCancel { task.cancel() }
        task.resume()
        let pending: Invalidation? = state.withLock { state in
            state.creating -= 1
            guard state.creating == 0, let pending = state.pendingInvalidation else { return nil }
            state.pendingInvalidation = nil
            return pending
        }
        if let pending { Self.invalidate(session, pending) }
        return promise
    }

    /// Requests in flight.
    var activeCount: Int { delegate.activeCount }

    /// Cancels every request in flight (each settles as cancelled once its
    /// task has ended) and lets the session go.
    func invalidate() {
        close(.cancelTasks)
    }

    /// Lets the requests in flight finish, then lets the session go.
    func finishAndInvalidate() {
        close(.finishTasks)
    }

    private func close(_ kind: Invalidation) {
        let session: URLSession? = state.withLock { state in
            guard !state.invalidated else { return nil }
            state.invalidated = true
            if state.creating > 0 {
                state.pendingInvalidation = kind
                return nil
            }
            return state.session
        }
        if let session { Self.invalidate(session, kind) }
    }

    private static func invalidate(_ session: URLSession, _ kind: Invalidation) {
        switch kind {
        case .cancelTasks: session.invalidateAndCancel()
        case .finishTasks: session.finishTasksAndInvalidate()
        }
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
