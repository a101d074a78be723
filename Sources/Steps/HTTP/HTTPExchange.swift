import CSystemShims
import Dispatch
import Glibc
import PromiseEngine
import RunnerSystem
import WorkflowModel

/// One `http` step from its first request to its result: the hops
/// (redirects followed as docs/steps.md, 'Redirects' says, credentials
/// kept from other origins), the run's cookies, the body (decoded, kept in
/// memory up to the limit or streamed into the `save` file), the timings,
/// the checks.
///
/// Lives on the event loop thread: its transports call it there, and
/// `HTTPClient` hands it over before it starts.
///
/// Its stored properties skip the run-time exclusivity check
/// (`@exclusivity(unchecked)`): one thread uses them, none is accessed
/// twice at once, and the checks were about 5% of an HTTP request's
/// instructions in the open model.
final class HTTPExchange: HopDelegate {
    /// `GET http://...`, for messages.
    var label: String { step.label }
    /// The step and its prepared request, shared with the client (read in
    /// place: no copy of either).
    private let order: HTTPOrder
    private var step: ResolvedHTTPRequest { _read { yield order.step } }
    private var prepared: PreparedRequest { _read { yield order.prepared } }
    private let resolver: Resolver<StepResult>
    private unowned let engine: HTTPEngine
    /// The step's cookie store; nil: the engine's.
    private let cookies: CookieStore?
    /// `-vv`: hears what goes over the wire.
    private let wire: (@Sendable (String) -> Void)?
    private let redirectLimit: Int
    private let bodyLimit: Int
    /// Where `save` puts the body (absolute), if it does.
    private let saveTarget: String?
    private let onTransfer: (@Sendable (Int64, Int64?) -> Void)?
    private let started: ContinuousClock.Instant

    @exclusivity(unchecked) private var request: HopRequest
    @exclusivity(unchecked) private var handle: (any HopHandle)?
    @exclusivity(unchecked) private var redirects = 0
    /// The response being read is a redirect to here: its body is dropped.
    @exclusivity(unchecked) private var redirectTarget: RequestURL?
    @exclusivity(unchecked) private var discarded = 0
    @exclusivity(unchecked) private var head: ResponseHead?
    @exclusivity(unchecked) private var decoder: ContentDecoder?
    @exclusivity(unchecked) private var body: [UInt8] = []
    /// Body bytes kept or saved (after decoding).
    @exclusivity(unchecked) private var received: Int64 = 0
    @exclusivity(unchecked) private var expected: Int64?
    @exclusivity(unchecked) private var file: (path: String, fd: Int32)?
    /// How much of the save file was handed to the disk's writeback.
    @exclusivity(unchecked) private var flushedUpTo: Int64 = 0
    /// A save starts writing back every this many bytes, so the fsync at
    /// the end waits for little and the disk works while the network does.
    private static let writebackStep: Int64 = 8 << 20
    /// Set when the exchange stops itself (body too large, disk error).
    @exclusivity(unchecked) private var failure: StepFailure?
    @exclusivity(unchecked) private(set) var isOver = false

    /// The most a redirect's own body may be before its connection is
    /// closed instead of read to the end.
    private static let redirectBodyLimit = 64 * 1024

    init(
        order: HTTPOrder, resolver: Resolver<StepResult>, engine: HTTPEngine, redirects: Int, bodyLimit: Int,
        idleTimeout: Duration?, saveTarget: String?, onTransfer: (@Sendable (Int64, Int64?) -> Void)?,
        cookies: CookieStore? = nil, wire: (@Sendable (String) -> Void)? = nil, started: ContinuousClock.Instant = .now
    ) {
        self.started = started
        self.cookies = cookies
        self.wire = wire
        self.order = order
        self.resolver = resolver
        self.engine = engine
        self.redirectLimit = min(order.step.redirects ?? redirects, 100)
        self.bodyLimit = bodyLimit
        self.saveTarget = saveTarget
        self.onTransfer = onTransfer
        let prepared = order.prepared
        request = HopRequest(
            method: prepared.method, url: prepared.url, headers: [], body: prepared.body,
            tls: prepared.tls, proxy: nil, idleTimeout: idleTimeout, wire: wire,
            transport: prepared.transport)
        request.wantsCertificate = Self.readsCertificate(order.step)
    }

    /// Whether the step's expectations or captures read the certificate.
    private static func readsCertificate(_ step: ResolvedHTTPRequest) -> Bool {
        step.expectations.contains { expectation in
            if case .value(.certificate, _, _) = expectation { return true }
            return false
        }
            || step.captures.contains { capture in
                if case .certificate = capture.source { return true }
                return false
            }
    }

    // MARK: - Starting and stopping (loop thread)

    func start() {
        sendHop()
    }

    /// Stops at once and settles as cancelled.
    func cancel() {
        guard !isOver else { return }
        isOver = true
        handle?.cancel()
        handle = nil
        discardFile()
        engine.ended(self)
        resolver.cancel()
    }

    private func sendHop() {
        request.headers = headers(for: &request)
        // A Unix socket goes to the server itself, never through a proxy.
        request.proxy = request.transport.unixSocket == nil ? engine.proxies.proxy(for: request.url) : nil
        switch engine.transport(for: request) {
        case .success(let transport):
            handle = transport.start(request, delegate: self)
        case .failure(let failure):
            fail(StepFailure(.network, "\(label): \(failure.message)", result: partialResult()))
        }
    }

    /// The headers the client sets itself when the step does not:
    /// a step's header of the same name replaces it, and an empty value
    /// removes it (curl's `-H 'Accept:'`).
    private static let clientHeaders = ["user-agent", "accept", "accept-encoding", "connection"]

    /// What the hop sends: the defaults, the step's headers (its
    /// `Authorization`, `Cookie` and `Host` only to the step's own origin),
    /// the cookies of the store, and the body's length. Sets the hop's
    /// `host` to a `Host` the step gives.
    private func headers(for hop: inout HopRequest) -> [(name: String, value: String)] {
        let sameOrigin = hop.url.origin == prepared.url.origin
        var hasAuthorization = false
        var replaced: Set<String> = []
        var stepCookie: String?
        var stepHeaders: [(name: String, value: String)] = []
        stepHeaders.reserveCapacity(prepared.headers.count)
        hop.host = nil
        for header in prepared.headers {
            let name = header.name
            if name.equalsLowercase("authorization") {
                guard sameOrigin else { continue }
                hasAuthorization = true
            } else if name.equalsLowercase("proxy-authorization") {
                guard sameOrigin else { continue }
            } else if name.equalsLowercase("cookie") {
                if sameOrigin { stepCookie = header.value }
                continue
            } else if name.equalsLowercase("host") {
                // The virtual host asked for, sent to the step's own origin
                // only: another origin gets its own authority.
                if sameOrigin { hop.host = header.value }
                continue
            } else if name.equalsLowercase("content-length") {
                continue
            } else if name.equalsLowercase("content-type") {
                // A redirect that dropped the body drops its type; a step
                // that never had a body sends the type it set (a PATCH of
                // conditions, a GET some API asks a type of).
                if hop.body.length == nil, prepared.body.length != nil { continue }
            } else if let client = Self.clientHeaders.first(where: { name.equalsLowercase($0) }) {
                replaced.insert(client)
                if header.value.isEmpty { continue }
            }
            stepHeaders.append(header)
        }
        // The defaults as they are (shared, not rebuilt) unless the step
        // replaced one of them.
        var result =
            replaced.isEmpty
            ? Self.defaultHeaders
            : Self.defaultHeaders.filter { !replaced.contains($0.name.lowercased()) }
        if !stepHeaders.isEmpty { result += stepHeaders }
        if sameOrigin, !hasAuthorization, let userInfo = prepared.url.userInfo {
            result.append(("Authorization", "Basic " + BasicAuthToken.of(userInfo: userInfo)))
        }
        var cookie = stepCookie
        if step.cookies, !jarIsEmpty, let stored = withJar({ $0.header(for: hop.url, now: Self.epochSeconds()) }) {
            cookie = cookie.map { $0 + "; " + stored } ?? stored
        }
        if let cookie { result.append(("Cookie", cookie)) }
        if let length = hop.body.length {
            result.append(("Content-Length", String(length)))
        } else if hop.method == "POST" || hop.method == "PUT" || hop.method == "PATCH" {
            result.append(("Content-Length", "0"))
        }
        return result
    }

    private static let userAgent = "promise-run/\(PromiseRunVersion.current)"

    /// What the client sends unless a step's header replaces it.
    private static let defaultHeaders: [(name: String, value: String)] = {
        var headers = [("User-Agent", userAgent), ("Accept", "*/*")]
        if !ContentDecoder.acceptEncoding.isEmpty { headers.append(("Accept-Encoding", ContentDecoder.acceptEncoding)) }
        return headers
    }()

    // MARK: - The hop's response (HopDelegate)

    func hopHead(_ head: ResponseHead) -> Bool {
        if let wire { wire(WireDump.response(head)) }
        if step.cookies, head.headers.contains(named: "set-cookie") {
            withJar { $0.store(head.headers, from: request.url, now: Self.epochSeconds()) }
        }
        if redirectLimit > 0, Self.redirectStatuses.contains(head.status), let location = head.value(.location),
            request.url.resolving(location) == nil
        {
            // Followed only to http(s): `file:`, `ftp:`, `gopher:` or a
            // URL that cannot be read is not a success of the step either.
            self.head = head
            let shown = location.count > 200 ? location.prefix(199) + "…" : Substring(location)
            failure = StepFailure(
                .network,
                "\(label): the server redirected (\(head.status)) to '\(shown)', which is not "
                    + "an http:// or https:// URL; redirects are followed only to http and https")
            return false
        }
        if Self.redirectStatuses.contains(head.status), let location = head.value(.location),
            let target = request.url.resolving(location)
        {
            if redirects < redirectLimit {
                redirectTarget = target
                lastRedirectStatus = head.status
                discarded = 0
                return true
            }
            if redirectLimit > 0 {
                // `redirects 0` asks for the redirect itself; past a limit
                // of one or more, another redirect is a loop or a chain
                // longer than the step allows (curl and Hurl fail too).
                self.head = head
                let limit =
                    step.redirects == nil
                    ? "the default, 10; raise it with 'redirects N', at most 100"
                    : "'redirects \(redirectLimit)'"
                failure = StepFailure(
                    .network,
                    "\(label): too many redirects: stopped after \(redirects) (\(limit)); "
                        + "the last response was \(head.status) to \(target.text)")
                return false
            }
        }
        self.head = head
        // A HEAD, 204 or 304 response has no body, whatever its
        // Content-Length says (the size of what a GET would get).
        let hasBody = request.method != "HEAD" && head.status != 204 && head.status != 304
        expected = hasBody ? head.value(.contentLength).flatMap { Int64($0.trimmingSpaces) } : nil
        do {
            // A step that asks for `identity` (the shared cache does) gets
            // the bytes as they came, whatever coding the server used.
            decoder = asksForIdentity ? nil : try ContentDecoder.make(for: head.value(.contentEncoding))
        } catch {
            failure = StepFailure(.network, "\(label): \(error.message)")
            return false
        }
        if decoder != nil { expected = nil }
        if let saveTarget {
            do {
                try FileSystem().makeDirectories(Paths.parent(of: saveTarget))
                file = try FileSystem.createTemporaryFile(near: saveTarget)
            } catch {
                failure = StepFailure(.file, "\(label): save \(error)")
                return false
            }
        } else if let expected, expected > Int64(bodyLimit) {
            failure = tooLarge(expected)
            return false
        }
        return true
    }

    /// Whether the step sends `Accept-Encoding: identity`: no decoding.
    private var asksForIdentity: Bool {
        prepared.headers.contains { $0.name.equalsLowercase("accept-encoding") && $0.value.trimmingSpaces.equalsLowercase("identity") }
    }

    func hopBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if redirectTarget != nil {
            discarded += bytes.count
            return discarded <= Self.redirectBodyLimit
        }
        if let decoder {
            do {
                try decoder.decode(bytes) { keep($0) }
            } catch {
                failure = StepFailure(.network, "\(label): \(error.message)")
            }
        } else {
            _ = keep(bytes)
        }
        guard failure == nil else { return false }
        if let expected, expected > 0 { resolver.progress(Double(received) / Double(expected)) }
        onTransfer?(received, expected)
        return true
    }

    /// Keeps decoded bytes: in memory or in the save file.
    private func keep(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if let file {
            do {
                try FileSystem().writeAll(file.fd, bytes, path: file.path)
            } catch {
                failure = StepFailure(.file, "\(label): save \(saveTarget ?? ""): \(error)")
                return false
            }
            let written = received + Int64(bytes.count)
            if written - flushedUpTo >= Self.writebackStep {
                _ = csh_start_writeback(file.fd, flushedUpTo, written - flushedUpTo)
                flushedUpTo = written
            }
        } else {
            guard body.count + bytes.count <= bodyLimit else {
                failure = tooLarge(nil)
                return false
            }
            body.append(contentsOf: bytes)
        }
        received += Int64(bytes.count)
        return true
    }

    func hopEnded(_ end: HopEnd) {
        handle = nil
        guard !isOver else { return }
        if let target = redirectTarget {
            switch end {
            case .complete, .stopped:
                follow(to: target)
                return
            case .failed:
                break
            }
        }
        switch end {
        case .complete(let timings, let version, let certificate):
            succeed(timings: timings, version: version, certificate: certificate)
        case .stopped:
            fail(failure ?? StepFailure(.network, "\(label): the transfer stopped"))
        case .failed(let hopFailure):
            let kind: FailureKind = hopFailure.kind == .timeout ? .timeout : .network
            fail(StepFailure(kind, "\(label): \(hopFailure.message)", result: partialResult()))
        }
    }

    /// Runs `body` on the step's cookie jar: its iteration's store, or
    /// the engine's (the run's without a store given).
    /// The jar holds no cookie: nothing to send, nothing to report (the
    /// common case: the jar is not even looked at).
    private var jarIsEmpty: Bool { cookies?.isEmpty ?? engine.cookies.cookies.isEmpty }

    private func withJar<Result: Sendable>(_ body: (inout CookieJar) -> Result) -> Result {
        guard let cookies else { return body(&engine.cookies) }
        return cookies.withContents { contents in
            // A store without cookies holds nothing, not an empty jar: most
            // runs never see a cookie, and a cast from `any Sendable` at
            // each of a request's two visits cost 500 instructions.
            var jar = contents.map { $0 as? CookieJar ?? CookieJar() } ?? CookieJar()
            // Taken out while it changes, so the change is not a copy.
            contents = nil
            defer { contents = jar.cookies.isEmpty ? nil : jar }
            return body(&jar)
        }
    }

    // MARK: - Redirects

    /// 301, 302 and 303 turn POST into GET without a body (303 any method
    /// but HEAD); 307 and 308 keep the method and the body.
    private static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    private func follow(to target: RequestURL) {
        let status = lastRedirectStatus
        redirectTarget = nil
        redirects += 1
        var next = request
        next.url = target
        if (status == 303 && next.method != "HEAD") || ((status == 301 || status == 302) && next.method == "POST") {
            next.method = next.method == "HEAD" ? "HEAD" : "GET"
            next.body = .none
        }
        request = next
        sendHop()
    }

    @exclusivity(unchecked) private var lastRedirectStatus = 0

    // MARK: - The end

    private func succeed(timings: HopTimings, version: String, certificate: ServerCertificate?) {
        guard let head else {
            fail(StepFailure(.network, "\(label): no response"))
            return
        }
        isOver = true
        engine.ended(self)
        // The response ended when its last byte arrived, not when a
        // deferred read took it.
        let total = max(started.duration(to: .now) - timings.held, timings.firstByte)
        var info = HTTPExchangeInfo(
            url: request.url.text, redirects: redirects, version: version,
            timings: HTTPTimings(
                dns: timings.dns, connect: timings.connect, tls: timings.tls,
                firstByte: timings.firstByte, total: max(total, timings.firstByte)))
        if step.cookies, !jarIsEmpty { info.cookies = withJar { $0.values(for: request.url, now: Self.epochSeconds()) } }
        info.certificate = certificate
        let contentType = head.value(.contentType)
        let partial = {
            var partial = StepResult(status: head.status, headers: head.headers, duration: total, http: info)
            partial.settledEarlier = timings.held
            return partial
        }()
        let file = self.file
        self.file = nil
        let body = self.body
        self.body = []
        if let wire, file == nil { wire(WireDump.body(body, prefix: "< ")) }
        // What the settling reads of the step, not the whole request.
        let expectations = step.expectations
        let captures = step.captures
        let method = step.method
        let url = step.url
        let saveTarget = self.saveTarget
        let resolver = self.resolver
        let received = self.received
        let settle: @Sendable () -> Void = {
            var result = partial
            result.body =
                file == nil
                ? CapturedText(text: BodyText.decode(body, contentType: contentType), totalBytes: body.count)
                : CapturedText(text: "", totalBytes: Int(received))
            do {
                try ExpectationEvaluator.checkHTTP(
                    &result, expectations: expectations, captures: captures,
                    savedTo: file == nil ? nil : saveTarget)
            } catch {
                if let file {
                    close(file.fd)
                    unlink(file.path)
                }
                resolver.reject(error)
                return
            }
            if let file, let saveTarget {
                do {
                    try FileSystem.commit(file.fd, temporary: file.path, to: saveTarget)
                } catch {
                    unlink(file.path)
                    resolver.reject(StepFailure(.file, "\(method.rawValue) \(url): save \(error)", result: result))
                    return
                }
                result.path = saveTarget
            }
            resolver.fulfill(result)
        }
        // Small bodies are checked here, and what follows the step runs on
        // the loop thread at once (the next request of a foreach starts
        // without a hop). A save (fsync) or a large body (a JSON parse)
        // goes to a worker so that the loop does not stall.
        if !expectations.isEmpty || !captures.isEmpty, ExpectationEvaluator.usesPatterns(expectations, captures) {
            // A regular expression may run for minutes: off the loop, and a
            // cancel (a timeout, Ctrl-C) settles the step at once.
            resolver.onCancel { resolver.cancel() }
            DispatchQueue.global().async(execute: settle)
        } else if file != nil || body.count > 256 * 1024 {
            DispatchQueue.global().async(execute: settle)
        } else {
            settle()
        }
    }

    private func fail(_ failure: StepFailure) {
        guard !isOver else { return }
        isOver = true
        discardFile()
        engine.ended(self)
        var failure = failure
        if failure.result == nil { failure.result = partialResult() }
        resolver.reject(failure)
    }

    /// Status and headers, when they came, for a failure's report.
    private func partialResult() -> StepResult {
        StepResult(status: head?.status, headers: head?.headers ?? [], duration: started.duration(to: .now))
    }

    private func discardFile() {
        guard let file else { return }
        close(file.fd)
        unlink(file.path)
        self.file = nil
    }

    private func tooLarge(_ size: Int64?) -> StepFailure {
        let what = size.map { "is \($0) bytes" } ?? "is larger than that"
        return StepFailure(
            .network,
            "\(label): the response body \(what); at most \(bodyLimit) bytes are kept in memory "
                + "(use 'save PATH' to stream it to a file)")
    }

    static func epochSeconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec)
    }
}
