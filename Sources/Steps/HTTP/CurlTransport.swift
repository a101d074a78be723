import CSystemShims
import Glibc
import PromiseEngine
import RunnerSystem
import WorkflowModel

/// HTTPS (HTTP/2 when the server offers it), and any request through a
/// proxy, with libcurl's multi-socket interface driven from the step
/// runner's event loop: libcurl's sockets are watched by the loop's epoll
/// and its one timer is a loop timer, so it needs no thread of its own.
/// libcurl is loaded at first use (`csh_curl_load`); redirects, cookies and
/// content decoding stay with the exchange, as for `HTTP1Transport`.
///
/// Loop thread only.
final class CurlTransport: HopTransport {
    let loop: EventLoop
    private let multi: UnsafeMutableRawPointer
    private var hops: [UnsafeMutableRawPointer: CurlHop] = [:]
    private var sockets: [Int32: EventLoop.Token] = [:]
    private var timer: EventLoop.Token?
    private var spareHandles: [UnsafeMutableRawPointer] = []
    private var disposed = false

    /// Loads libcurl and makes the multi handle, or says why it cannot.
    static func make(loop: EventLoop) -> Result<CurlTransport, HopFailure> {
        var message = [CChar](repeating: 0, count: 512)
        guard csh_curl_load(&message, message.count) == 0 else {
            return .failure(
                .network(
                    "HTTPS and proxies need libcurl (libcurl.so.4), which could not be loaded: "
                        + cText(message)))
        }
        let transport = CurlTransport(loop: loop)
        guard let transport else { return .failure(.network("libcurl could not make a multi handle")) }
        return .success(transport)
    }

    private init?(loop: EventLoop) {
        self.loop = loop
        let onSocket: csh_curl_socket_fn = { _, fd, what, data, _ in
            Unmanaged<CurlTransport>.fromOpaque(data!).takeUnretainedValue().socket(fd, what: what)
            return 0
        }
        let onTimer: csh_curl_timer_fn = { _, milliseconds, data in
            Unmanaged<CurlTransport>.fromOpaque(data!).takeUnretainedValue().setTimer(milliseconds)
            return 0
        }
        // The multi handle is freed in `dispose` before the transport goes.
        guard let multi = csh_curl_multi_new(onSocket, onTimer, nil) else { return nil }
        self.multi = multi
        let me = Unmanaged.passUnretained(self).toOpaque()
        csh_curl_multi_set_data(multi, me)
        _ = csh_curl_multi_set_long(multi, Int32(CSH_CURLMOPT_PIPELINING), Int(CSH_CURLPIPE_MULTIPLEX))
    }

    deinit {
        dispose()
    }

    /// At most this many connections to one host (HTTP/2 multiplexes
    /// requests over one).
    func limitConnections(perHost limit: Int) {
        _ = csh_curl_multi_set_long(multi, Int32(CSH_CURLMOPT_MAX_HOST_CONNECTIONS), limit)
    }

    func start(_ request: HopRequest, delegate: any HopDelegate) -> any HopHandle {
        let easy = spareHandles.popLast() ?? csh_curl_easy_new()!
        let hop = CurlHop(easy: easy, request: request, delegate: delegate, transport: self)
        if let failure = hop.configure() {
            recycle(easy)
            hop.fail(failure)
            return hop
        }
        hops[easy] = hop
        let added = csh_curl_multi_add(multi, easy)
        if added != 0 {
            hops.removeValue(forKey: easy)
            recycle(easy)
            hop.fail(.network("libcurl refused the request (multi error \(added))"))
        }
        return hop
    }

    func closeAll() {
        for (easy, hop) in hops {
            _ = csh_curl_multi_remove(multi, easy)
            hop.detach()
            csh_curl_easy_free(easy)
        }
        hops.removeAll()
    }

    /// Stops everything and frees libcurl's handles.
    func dispose() {
        guard !disposed else { return }
        disposed = true
        closeAll()
        if let timer { loop.cancelTimer(timer) }
        timer = nil
        for easy in spareHandles { csh_curl_easy_free(easy) }
        spareHandles.removeAll()
        csh_curl_multi_free(multi)
        for (fd, token) in sockets { loop.unregister(fd, token: token) }
        sockets.removeAll()
    }

    /// Stops one hop (cancellation): libcurl closes its connection.
    fileprivate func remove(_ hop: CurlHop) {
        guard hops.removeValue(forKey: hop.easy) != nil else { return }
        _ = csh_curl_multi_remove(multi, hop.easy)
        recycle(hop.easy)
    }

    private func recycle(_ easy: UnsafeMutableRawPointer) {
        if spareHandles.count < 64 {
            csh_curl_easy_reset(easy)
            spareHandles.append(easy)
        } else {
            csh_curl_easy_free(easy)
        }
    }

    // MARK: - Driving libcurl from the loop

    private func socket(_ fd: Int32, what: Int32) {
        if what == Int32(CSH_CURL_POLL_REMOVE) {
            if let token = sockets.removeValue(forKey: fd) { loop.unregister(fd, token: token) }
            return
        }
        var events: UInt32 = 0
        if what & Int32(CSH_CURL_POLL_IN) != 0 { events |= csh_epollin() }
        if what & Int32(CSH_CURL_POLL_OUT) != 0 { events |= csh_epollout() }
        if let token = sockets[fd] {
            loop.modify(fd, token: token, events: events)
        } else {
            let token = loop.makeToken()
            sockets[fd] = token
            loop.register(fd, token: token, events: events) { [unowned self] ready in
                var flags: Int32 = 0
                if ready & csh_epollin() != 0 { flags |= Int32(CSH_CURL_CSELECT_IN) }
                if ready & csh_epollout() != 0 { flags |= Int32(CSH_CURL_CSELECT_OUT) }
                if ready & (csh_epollerr() | csh_epollhup()) != 0 { flags |= Int32(CSH_CURL_CSELECT_ERR) }
                self.action(fd, flags)
            }
        }
    }

    private func setTimer(_ milliseconds: Int) {
        if let timer { loop.cancelTimer(timer) }
        timer = nil
        guard milliseconds >= 0 else { return }
        timer = loop.schedule(after: .milliseconds(milliseconds)) { [unowned self] in
            self.timer = nil
            self.action(-1, 0)
        }
    }

    private func action(_ fd: Int32, _ flags: Int32) {
        guard !disposed else { return }
        var running: Int32 = 0
        _ = csh_curl_multi_action(multi, fd, flags, &running)
        var code: Int32 = 0
        while let easy = csh_curl_multi_next_done(multi, &code) {
            guard let hop = hops.removeValue(forKey: easy) else { continue }
            _ = csh_curl_multi_remove(multi, easy)
            let end = hop.ending(code)
            recycle(easy)
            hop.deliver(end)
        }
    }
}

/// One request through libcurl.
final class CurlHop: HopHandle {
    let easy: UnsafeMutableRawPointer
    private let request: HopRequest
    private var delegate: (any HopDelegate)?
    private unowned let transport: CurlTransport
    private var headerList: UnsafeMutableRawPointer?
    /// `resolve`'s lines, freed with the hop.
    private var resolveList: UnsafeMutableRawPointer?
    private var bodyCopy: UnsafeMutableRawBufferPointer?
    private var uploadFD: Int32 = -1
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CSH_CURL_ERROR_SIZE))
    private var status = 0
    private var version = "1.1"
    private var reason = ""
    private var headers: [(name: String, value: String)] = []
    private var headDelivered = false
    /// `-vv`: the first 4 KiB of the body libcurl sent, and how much it
    /// sent, said before the response.
    private var sentBody: [UInt8] = []
    private var sentBodyCount = 0
    /// The delegate said stop (libcurl then reports a write error).
    private var stopped = false
    private var ended = false

    init(easy: UnsafeMutableRawPointer, request: HopRequest, delegate: any HopDelegate, transport: CurlTransport) {
        self.easy = easy
        self.request = request
        self.delegate = delegate
        self.transport = transport
        errorBuffer[0] = 0
    }

    deinit {
        if let headerList { csh_curl_list_free(headerList) }
        if let resolveList { csh_curl_list_free(resolveList) }
        bodyCopy?.deallocate()
        if uploadFD >= 0 { close(uploadFD) }
        errorBuffer.deallocate()
    }

    func cancel() {
        guard !ended else { return }
        ended = true
        delegate = nil
        transport.remove(self)
    }

    /// For `closeAll`: forget the delegate; the handle is freed by the caller.
    fileprivate func detach() {
        ended = true
        delegate = nil
    }

    // MARK: - Setting up

    /// Sets every option; a failure to report instead, if any.
    fileprivate func configure() -> HopFailure? {
        let me = Unmanaged.passUnretained(self).toOpaque()
        func setLong(_ option: Int32, _ value: Int) { _ = csh_curl_set_long(easy, option, value) }
        func setText(_ option: Int32, _ value: String) { _ = value.withCString { csh_curl_set_pointer(easy, option, $0) } }
        setText(Int32(CSH_CURLOPT_URL), request.url.text)
        setText(Int32(CSH_CURLOPT_PROTOCOLS_STR), "http,https")
        setText(Int32(CSH_CURLOPT_CUSTOMREQUEST), request.method)
        if request.method == "HEAD" { setLong(Int32(CSH_CURLOPT_NOBODY), 1) }
        setLong(Int32(CSH_CURLOPT_NOSIGNAL), 1)
        setLong(Int32(CSH_CURLOPT_NOPROGRESS), 1)
        setLong(Int32(CSH_CURLOPT_FOLLOWLOCATION), 0)
        setLong(Int32(CSH_CURLOPT_HTTP_CONTENT_DECODING), 0)
        setLong(Int32(CSH_CURLOPT_PIPEWAIT), 1)
        setLong(Int32(CSH_CURLOPT_SUPPRESS_CONNECT_HEADERS), 1)
        // HTTP/2 over TLS when the server offers it; `http-version 1.1`
        // asks for 1.1 only, `http-version 2` over http:// speaks HTTP/2
        // from the first byte (no upgrade), as curl's --http2-prior-knowledge.
        let version: Int32
        switch (request.transport.httpVersion, request.url.isSecure) {
        case (.http1_1, _), (nil, false): version = Int32(CSH_CURL_HTTP_VERSION_1_1)
        case (.http2, true): version = Int32(CSH_CURL_HTTP_VERSION_2_0)
        case (.http2, false): version = Int32(CSH_CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE)
        case (nil, true): version = Int32(CSH_CURL_HTTP_VERSION_2TLS)
        }
        setLong(Int32(CSH_CURLOPT_HTTP_VERSION), Int(version))
        if let limit = request.transport.connectTimeout {
            let (seconds, attoseconds) = limit.components
            setLong(Int32(CSH_CURLOPT_CONNECTTIMEOUT_MS), max(1, Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)))
        }
        if let socketPath = request.transport.unixSocket { setText(Int32(CSH_CURLOPT_UNIX_SOCKET_PATH), socketPath) }
        if request.wantsCertificate && request.url.isSecure {
            setLong(Int32(CSH_CURLOPT_CERTINFO), 1)
            setLong(Int32(CSH_CURLOPT_FRESH_CONNECT), 1)
        }
        if !request.transport.resolve.isEmpty {
            var list: UnsafeMutableRawPointer?
            for mapping in request.transport.resolve {
                let address = mapping.address.contains(":") ? "[\(mapping.address)]" : mapping.address
                list = csh_curl_list_append(list, "\(mapping.host):\(mapping.port):\(address)")
            }
            resolveList = list
            _ = csh_curl_set_pointer(easy, Int32(CSH_CURLOPT_RESOLVE), list)
        }
        _ = csh_curl_set_pointer(easy, Int32(CSH_CURLOPT_ERRORBUFFER), errorBuffer)
        setText(Int32(CSH_CURLOPT_PROXY), request.proxy ?? "")

        let tls = request.tls
        if tls.insecure {
            setLong(Int32(CSH_CURLOPT_SSL_VERIFYPEER), 0)
            setLong(Int32(CSH_CURLOPT_SSL_VERIFYHOST), 0)
            setLong(Int32(CSH_CURLOPT_PROXY_SSL_VERIFYPEER), 0)
            setLong(Int32(CSH_CURLOPT_PROXY_SSL_VERIFYHOST), 0)
        }
        if let caFile = tls.caFile {
            setText(Int32(CSH_CURLOPT_CAINFO), caFile)
            setText(Int32(CSH_CURLOPT_PROXY_CAINFO), caFile)
        }
        if let certificate = tls.certificateFile {
            setText(Int32(CSH_CURLOPT_SSLCERT), certificate)
            setText(Int32(CSH_CURLOPT_SSLCERTTYPE), "PEM")
        }
        if let key = tls.keyFile {
            setText(Int32(CSH_CURLOPT_SSLKEY), key)
            setText(Int32(CSH_CURLOPT_SSLKEYTYPE), "PEM")
        }
        if let idle = request.idleTimeout {
            let (seconds, attoseconds) = idle.components
            setLong(Int32(CSH_CURLOPT_LOW_SPEED_LIMIT), 1)
            setLong(Int32(CSH_CURLOPT_LOW_SPEED_TIME), max(1, Int(seconds) + (attoseconds > 0 ? 1 : 0)))
        }

        var hasContentType = false
        var hasAccept = false
        var list: UnsafeMutableRawPointer?
        // The step's virtual host replaces libcurl's; "Host:" removes it.
        if let host = request.host { list = csh_curl_list_append(list, "Host: \(host)") }
        for (name, value) in request.headers {
            let lower = name.lowercased()
            if lower == "content-length" { continue }
            if lower == "content-type" { hasContentType = true }
            if lower == "accept" { hasAccept = true }
            // "Name;" sends a header with an empty value; "Name:" would
            // remove libcurl's own.
            list = csh_curl_list_append(list, value.isEmpty ? "\(name);" : "\(name): \(value)")
        }
        list = csh_curl_list_append(list, "Expect:")
        if !hasContentType { list = csh_curl_list_append(list, "Content-Type:") }
        // A step that removed `Accept` sends none: libcurl would add its own.
        if !hasAccept { list = csh_curl_list_append(list, "Accept:") }
        headerList = list
        _ = csh_curl_set_pointer(easy, Int32(CSH_CURLOPT_HTTPHEADER), list)

        switch request.body {
        case .none:
            if ["POST", "PUT", "PATCH"].contains(request.method) { setBytes([]) }
        case .bytes(let bytes):
            setBytes(bytes)
        case .file(let path, let size):
            uploadFD = open(path, O_RDONLY | O_CLOEXEC)
            guard uploadFD >= 0 else { return .network("could not read the body file \(path): \(systemReason(errno))") }
            setLong(Int32(CSH_CURLOPT_UPLOAD), 1)
            _ = csh_curl_set_offset(easy, Int32(CSH_CURLOPT_INFILESIZE_LARGE), size)
            _ = csh_curl_set_callback(easy, Int32(CSH_CURLOPT_READFUNCTION)) { bytes, size, count, data in
                let hop = Unmanaged<CurlHop>.fromOpaque(data!).takeUnretainedValue()
                let got = read(hop.uploadFD, bytes, size * count)
                return got < 0 ? 0x1000_0000 : got  // 0x1000_0000: CURL_READFUNC_ABORT
            }
            _ = csh_curl_set_pointer(easy, Int32(CSH_CURLOPT_READDATA), me)
            _ = csh_curl_set_seek(
                easy,
                { data, offset, origin in
                    let hop = Unmanaged<CurlHop>.fromOpaque(data!).takeUnretainedValue()
                    return lseek(hop.uploadFD, off_t(offset), origin) < 0 ? 2 : 0  // 2: CURL_SEEKFUNC_CANTSEEK
                }, me)
        }

        _ = csh_curl_set_callback(easy, Int32(CSH_CURLOPT_HEADERFUNCTION)) { bytes, size, count, data in
            let hop = Unmanaged<CurlHop>.fromOpaque(data!).takeUnretainedValue()
            let length = size * count
            return hop.headerLine(UnsafeRawBufferPointer(start: bytes, count: length)) ? length : 0
        }
        _ = csh_curl_set_pointer(easy, Int32(CSH_CURLOPT_HEADERDATA), me)
        _ = csh_curl_set_callback(easy, Int32(CSH_CURLOPT_WRITEFUNCTION)) { bytes, size, count, data in
            let hop = Unmanaged<CurlHop>.fromOpaque(data!).takeUnretainedValue()
            let length = size * count
            return hop.bodyPiece(UnsafeRawBufferPointer(start: bytes, count: length)) ? length : 0
        }
        _ = csh_curl_set_pointer(easy, Int32(CSH_CURLOPT_WRITEDATA), me)
        if request.wire != nil {
            _ = csh_curl_set_debug(
                easy,
                { _, type, bytes, size, data in
                    let hop = Unmanaged<CurlHop>.fromOpaque(data!).takeUnretainedValue()
                    hop.debug(type, UnsafeRawBufferPointer(start: bytes, count: size))
                    return 0
                }, me)
        }
        return nil
    }

    /// `-vv`: what libcurl says it sent: each request head as
    /// it went out (a proxy's absolute URL, HTTP/2, the headers libcurl
    /// added), the body after it, said before the response's head.
    private func debug(_ type: Int32, _ bytes: UnsafeRawBufferPointer) {
        guard let wire = request.wire else { return }
        switch type {
        case Int32(CSH_CURLINFO_HEADER_OUT):
            sayBodySent()
            wire(WireDump.sentHead(bytes))
        case Int32(CSH_CURLINFO_DATA_OUT):
            if sentBody.count < WireDump.bodyLimit { sentBody += bytes.prefix(WireDump.bodyLimit - sentBody.count) }
            sentBodyCount += bytes.count
        case Int32(CSH_CURLINFO_HEADER_IN):
            sayBodySent()
        default:
            break
        }
    }

    /// The body sent so far, said once.
    private func sayBodySent() {
        guard sentBodyCount > 0, let wire = request.wire else { return }
        wire(WireDump.body(sentBody, total: sentBodyCount, prefix: "> "))
        sentBody = []
        sentBodyCount = 0
    }

    /// libcurl keeps a pointer to POSTFIELDS: a copy that lives with the hop.
    private func setBytes(_ bytes: [UInt8]) {
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, bytes.count), alignment: 1)
        bytes.withUnsafeBytes { copy.copyMemory(from: $0) }
        bodyCopy = copy
        _ = csh_curl_set_offset(easy, Int32(CSH_CURLOPT_POSTFIELDSIZE_LARGE), Int64(bytes.count))
        _ = csh_curl_set_pointer(easy, Int32(CSH_CURLOPT_POSTFIELDS), copy.baseAddress)
    }

    // MARK: - libcurl's callbacks (inside curl_multi_socket_action)

    private func headerLine(_ line: UnsafeRawBufferPointer) -> Bool {
        var end = line.count
        while end > 0, line[end - 1] == 0x0A || line[end - 1] == 0x0D { end -= 1 }
        let text = UnsafeRawBufferPointer(rebasing: line[0..<end])
        if text.starts(with: "HTTP/".utf8) {
            // A status line starts a header block (interim, or the real one).
            headers.removeAll()
            let words = text.split(separator: 0x20, maxSplits: 2)
            if words.count >= 2, let code = Int(String(decoding: words[1], as: UTF8.self)) { status = code }
            reason = words.count == 3 ? String(decoding: words[2], as: UTF8.self) : ""
            let protocolName = words.first.map { String(decoding: $0, as: UTF8.self) } ?? ""
            version = protocolName == "HTTP/2" ? "2" : protocolName == "HTTP/1.0" ? "1.0" : protocolName == "HTTP/3" ? "3" : "1.1"
            return true
        }
        if text.isEmpty {
            guard status >= 200 || status == 101, !headDelivered else {
                headers.removeAll()
                return true
            }
            headDelivered = true
            var head = ResponseHead(status: status, version: version, headers: headers)
            head.reason = reason
            guard let delegate, delegate.hopHead(head) else {
                stopped = true
                return false
            }
            return true
        }
        if text[0] == 0x20 || text[0] == 0x09, !headers.isEmpty {
            headers[headers.count - 1].value += " " + String(decoding: text, as: UTF8.self).trimmingSpaces
            return true
        }
        guard let colon = text.firstIndex(of: UInt8(ascii: ":")) else { return true }
        headers.append(
            (
                String(decoding: text[0..<colon], as: UTF8.self),
                String(String(decoding: text[(colon + 1)...], as: UTF8.self).trimmingSpaces)
            ))
        return true
    }

    private func bodyPiece(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let delegate, delegate.hopBody(bytes) else {
            stopped = true
            return false
        }
        return true
    }

    // MARK: - The end

    /// How the transfer ended, read while the handle is still set up.
    fileprivate func ending(_ code: Int32) -> HopEnd {
        if stopped { return .stopped }
        guard code == Int32(CSH_CURLE_OK) else { return .failed(failure(code)) }
        func seconds(_ info: Int32) -> Duration {
            var microseconds: Int64 = 0
            _ = csh_curl_info_offset(easy, info, &microseconds)
            return .microseconds(microseconds)
        }
        var timings = HopTimings()
        timings.dns = seconds(Int32(CSH_CURLINFO_NAMELOOKUP_TIME_T))
        timings.connect = max(timings.dns, seconds(Int32(CSH_CURLINFO_CONNECT_TIME_T)))
        timings.tls = max(timings.connect, seconds(Int32(CSH_CURLINFO_APPCONNECT_TIME_T)))
        timings.firstByte = max(timings.tls, seconds(Int32(CSH_CURLINFO_STARTTRANSFER_TIME_T)))
        var versionCode = 0
        _ = csh_curl_info_long(easy, Int32(CSH_CURLINFO_HTTP_VERSION), &versionCode)
        switch versionCode {
        case 1: version = "1.0"
        case 2: version = "1.1"
        case 3: version = "2"
        case 30: version = "3"
        default: break
        }
        if !headDelivered {
            return .failed(.network("the server's response had no complete head"))
        }
        let certificate = request.wantsCertificate && request.url.isSecure ? CertificateLines.read(easy) : nil
        return .complete(timings, version: version, certificate: certificate)
    }

    fileprivate func deliver(_ end: HopEnd) {
        guard !ended else { return }
        sayBodySent()
        ended = true
        let delegate = self.delegate
        self.delegate = nil
        delegate?.hopEnded(end)
    }

    fileprivate func fail(_ failure: HopFailure) {
        deliver(.failed(failure))
    }

    /// Whether the transfer got a connection (libcurl's connect time is
    /// zero until it does).
    private var connected: Bool {
        var microseconds: Int64 = 0
        _ = csh_curl_info_offset(easy, Int32(CSH_CURLINFO_CONNECT_TIME_T), &microseconds)
        return microseconds > 0
    }

    private func failure(_ code: Int32) -> HopFailure {
        let detail = String(cString: errorBuffer)
        let words = detail.isEmpty ? String(cString: csh_curl_error_text(code)) : detail
        let authority = request.url.authority
        switch code {
        case Int32(CSH_CURLE_OPERATION_TIMEDOUT) where request.transport.connectTimeout != nil && !connected:
            let target = request.transport.unixSocket.map { "the Unix socket \($0)" } ?? authority
            return HopFailure(
                kind: .timeout,
                message: "could not connect to \(target) within "
                    + "\(DurationText.format(request.transport.connectTimeout!)) (connect-timeout)")
        case Int32(CSH_CURLE_OPERATION_TIMEDOUT):
            let limit = request.idleTimeout.map { DurationText.format($0) } ?? "too long"
            return HopFailure(kind: .timeout, message: "no data from the server for \(limit) (the idle timeout)")
        case Int32(CSH_CURLE_COULDNT_RESOLVE_HOST):
            return .network("could not find the host '\(request.url.host)' (DNS: \(words))")
        case Int32(CSH_CURLE_COULDNT_CONNECT):
            return .network("could not connect to \(authority) (\(Self.reasonOfConnect(words)))")
        case Int32(CSH_CURLE_PEER_FAILED_VERIFICATION):
            return .network("the server's TLS certificate is not trusted: \(words) (use 'cacert PATH' to trust its authority, or 'insecure')")
        case Int32(CSH_CURLE_SSL_CACERT_BADFILE):
            return .network("the CA certificate file could not be read: \(words)")
        case Int32(CSH_CURLE_SSL_CERTPROBLEM):
            return .network("the client certificate could not be used: \(words)")
        case Int32(CSH_CURLE_SSL_CONNECT_ERROR):
            return .network("the TLS handshake with \(authority) failed: \(words)")
        case Int32(CSH_CURLE_GOT_NOTHING):
            return .network("the server closed the connection without answering")
        case Int32(CSH_CURLE_COULDNT_RESOLVE_PROXY), Int32(CSH_CURLE_PROXY):
            return .network("the proxy \(request.proxy ?? "") failed: \(words)")
        case Int32(CSH_CURLE_RECV_ERROR), Int32(CSH_CURLE_SEND_ERROR), Int32(CSH_CURLE_PARTIAL_FILE):
            return .network("the connection failed: \(words)")
        case Int32(CSH_CURLE_READ_ERROR), Int32(CSH_CURLE_ABORTED_BY_CALLBACK):
            return .network("could not read the body file: \(words)")
        default:
            return .network(words)
        }
    }

    /// `Failed to connect to 127.0.0.1 port 1 after 0 ms: Connection refused` → `connection refused`.
    private static func reasonOfConnect(_ words: String) -> String {
        guard let colon = words.lastIndex(of: ":") else { return words }
        return words[words.index(after: colon)...].trimmingSpaces.lowercased()
    }
}
