import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Glibc
import PromiseEngine

/// One request in flight: what arrived so far (status, headers, the body
/// in memory or in the temporary file of a `save`), and how it ends.
///
/// The session delegate calls it on the session's serial delegate queue;
/// its mutable state is behind a lock all the same, because the executor's
/// cancellation and the end of the run reach it from other threads.
final class HTTPTransfer: Sendable {
    struct Settings: Sendable {
        var redirectLimit: Int
        var bodyLimit: Int
    }

    /// `GET http://...`, for messages.
    let label: String
    private let step: HTTPRequest
    private let resolver: Resolver<StepResult>
    private let settings: Settings
    /// Where `save` puts the body (absolute), if it does.
    private let saveTarget: String?
    private let onTransfer: (@Sendable (Int64, Int64?) -> Void)?
    private let started: ContinuousClock.Instant
    private let state = Locked(State())

    private struct State {
        var status: Int?
        var headers: [(name: String, value: String)] = []
        var expected: Int64?
        var received: Int64 = 0
        var body: [UInt8] = []
        var redirects = 0
        var file: (path: String, fd: Int32)?
        /// Set when the transfer stops itself (body too large, disk error).
        var failure: StepFailure?
    }

    init(step: HTTPRequest, resolver: Resolver<StepResult>, settings: Settings, saveTarget: String?,
         onTransfer: (@Sendable (Int64, Int64?) -> Void)?, started: ContinuousClock.Instant) {
        self.label = "\(step.method.rawValue) \(step.url.literalValue ?? "")"
        self.step = step
        self.resolver = resolver
        self.settings = settings
        self.saveTarget = saveTarget
        self.onTransfer = onTransfer
        self.started = started
    }

    // MARK: - Delegate callbacks

    /// Whether to follow one more redirect.
    func shouldFollowRedirect() -> Bool {
        state.withLock { state in
            guard state.redirects < settings.redirectLimit else { return false }
            state.redirects += 1
            return true
        }
    }

    /// The final response's head. Returns false to stop the transfer.
    func receive(_ response: HTTPURLResponse) -> Bool {
        let status = response.statusCode
        var headers: [(name: String, value: String)] = []
        for (name, value) in response.allHeaderFields {
            headers.append((String(describing: name), String(describing: value)))
        }
        headers.sort { $0.name.lowercased() < $1.name.lowercased() }
        let expected = response.expectedContentLength >= 0 ? response.expectedContentLength : nil
        return state.withLock { state in
            state.status = status
            state.headers = headers
            state.expected = expected
            state.body = []
            state.received = 0
            if let saveTarget {
                if state.file == nil {
                    do {
                        try FileSystem().makeDirectories(Paths.parent(of: saveTarget))
                        state.file = try FileSystem.createTemporaryFile(near: saveTarget)
                    } catch {
                        state.failure = StepFailure(.file, "\(label): save \(error)")
                        return false
                    }
                }
            } else if let expected, expected > Int64(settings.bodyLimit) {
                state.failure = tooLarge(expected)
                return false
            }
            return true
        }
    }

    /// A piece of the body. Returns false to stop the transfer.
    func receive(_ data: Data) -> Bool {
        let progress: (Int64, Int64?)? = state.withLock { state in
            guard state.failure == nil else { return nil }
            if let file = state.file {
                let ok = data.withUnsafeBytes { bytes in
                    (try? FileSystem().writeAll(file.fd, bytes, path: file.path)) != nil
                }
                if !ok {
                    state.failure = StepFailure(.file, "\(label): save \(saveTarget ?? ""): \(systemReason(errno))")
                    return nil
                }
            } else {
                if state.body.count + data.count > settings.bodyLimit {
                    state.failure = tooLarge(nil)
                    return nil
                }
                state.body.append(contentsOf: data)
            }
            state.received += Int64(data.count)
            return (state.received, state.expected)
        }
        guard let (received, expected) = progress else { return false }
        if let expected, expected > 0 { resolver.progress(Double(received) / Double(expected)) }
        onTransfer?(received, expected)
        return true
    }

    private func tooLarge(_ size: Int64?) -> StepFailure {
        let what = size.map { "is \($0) bytes" } ?? "is larger than that"
        return StepFailure(.network, "\(label): the response body \(what); at most \(settings.bodyLimit) bytes are kept in memory (use 'save PATH' to stream it to a file)")
    }

    // MARK: - The end

    /// The task is over: settles the promise, off the delegate queue (the
    /// checks may read a large body; a `save` is flushed to disk).
    func complete(_ error: (any Error)?) {
        DispatchQueue.global().async { [self] in finish(error) }
    }

    private func finish(_ error: (any Error)?) {
        let (status, headers, body, received, file, failure) = state.withLock { state in
            let taken = (state.status, state.headers, state.body, state.received, state.file, state.failure)
            state.body = []
            state.file = nil
            return taken
        }
        let duration = started.duration(to: .now)
        var result = StepResult(status: status, headers: headers, duration: duration)
        if let failure {
            discard(file)
            var failure = failure
            failure.result = result
            resolver.reject(failure)
            return
        }
        if let error {
            discard(file)
            switch HTTPErrors.meaning(of: error, request: label, result: result) {
            case .cancelled: resolver.cancel()
            case .failure(let failure): resolver.reject(failure)
            }
            return
        }
        result.body = file == nil
            ? CapturedText(text: String(decoding: body, as: UTF8.self), totalBytes: body.count)
            : CapturedText(text: "", totalBytes: Int(received))
        do {
            try ExpectationEvaluator.checkHTTP(&result, expectations: step.expectations, captures: step.captures,
                                               savedTo: file == nil ? nil : saveTarget)
        } catch {
            discard(file)
            resolver.reject(error)
            return
        }
        if let file, let saveTarget {
            do {
                try FileSystem.commit(file.fd, temporary: file.path, to: saveTarget)
            } catch {
                unlink(file.path)
                resolver.reject(StepFailure(.file, "\(label): save \(error)", result: result))
                return
            }
            result.path = saveTarget
        }
        resolver.fulfill(result)
    }

    private func discard(_ file: (path: String, fd: Int32)?) {
        guard let file else { return }
        close(file.fd)
        unlink(file.path)
    }
}
