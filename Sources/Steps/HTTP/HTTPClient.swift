import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PromiseEngine
import Synchronization

/// Runs `http` steps on one URLSession per runner: ephemeral, no cache, no
/// cookies, `httpMaximumConnectionsPerHost` from the configuration, one
/// delegate for every task. The session is made for the first request
/// (loading libcurl costs a run without HTTP steps nothing).
final class HTTPClient: Sendable {
    private let delegate = SessionDelegate()
    private let configuration: StepsConfiguration
    /// Held while a task is made and registered, so that invalidation waits
    /// for it; a task made on an invalidated session would crash
    /// FoundationNetworking, so requests after it are cancelled instead.
    private let session = Locked(SessionState.unused)

    private enum SessionState {
        case unused
        case open(URLSession)
        case invalidated
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
        let task: URLSessionDataTask? = session.withLock { state in
            let session: URLSession
            switch state {
            case .invalidated: return nil
            case .open(let open): session = open
            case .unused:
                session = makeSession()
                state = .open(session)
            }
            let task: URLSessionDataTask
            if let file = prepared.bodyFile {
                task = session.uploadTask(with: prepared.request, fromFile: file)
            } else {
                task = session.dataTask(with: prepared.request)
            }
            delegate.add(transfer, for: task)
            task.resume()
            return task
        }
        guard let task else { return .cancelled() }
        resolver.onCancel { task.cancel() }
        return promise
    }

    /// Requests in flight.
    var activeCount: Int { delegate.activeCount }

    /// Cancels every request in flight (each settles as cancelled once its
    /// task has ended) and lets the session go.
    func invalidate() {
        if let session = close() { session.invalidateAndCancel() }
    }

    /// Lets the requests in flight finish, then lets the session go.
    func finishAndInvalidate() {
        if let session = close() { session.finishTasksAndInvalidate() }
    }

    /// Marks the session invalidated; returns it if it was open.
    private func close() -> URLSession? {
        session.withLock { state in
            defer { state = .invalidated }
            if case .open(let session) = state { return session }
            return nil
        }
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
