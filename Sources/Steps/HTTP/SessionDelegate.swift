import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The session's one delegate: routes each task's callbacks to its
/// `HTTPTransfer`. On Linux a per-task delegate is ignored, so redirect
/// limits and streaming bodies must go through the session's delegate.
final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let transfers = Locked<[Int: HTTPTransfer]>([:])

    func add(_ transfer: HTTPTransfer, for task: URLSessionTask) {
        transfers.withLock { $0[task.taskIdentifier] = transfer }
    }

    private func transfer(for task: URLSessionTask) -> HTTPTransfer? {
        transfers.withLock { $0[task.taskIdentifier] }
    }

    /// How many requests are in flight.
    var activeCount: Int { transfers.withLock { $0.count } }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        let follow = transfer(for: task)?.shouldFollowRedirect() ?? true
        completionHandler(follow ? request : nil)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        // The disposition is ignored on Linux (libcurl cannot pause): a
        // transfer that wants to stop cancels its task.
        completionHandler(.allow)
        guard let transfer = transfer(for: dataTask), let http = response as? HTTPURLResponse else { return }
        if !transfer.receive(http) { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let transfer = transfer(for: dataTask) else { return }
        if !transfer.receive(data) { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let transfer = transfers.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        transfer?.complete(error)
    }
}
