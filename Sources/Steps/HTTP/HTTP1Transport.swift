import CSystemShims
import Glibc
import PromiseEngine
import RunnerSystem
import WorkflowModel

/// HTTP/1.1 over plain TCP, on the step runner's event loop: kept-alive
/// connections per origin, responses parsed from the bytes as they come,
/// no thread hop, timer or task object per request. It carries every
/// `http://` request that goes to the server directly; HTTPS, HTTP/2 and
/// proxies go to libcurl (`CurlTransport`).
///
/// Loop thread only.
///
/// Its stored properties skip the run-time exclusivity check
/// (`@exclusivity(unchecked)`): one thread uses them, none is accessed
/// twice at once, and the checks were about 5% of an HTTP request's
/// instructions in the open model.
final class HTTP1Transport: HopTransport {
    let loop: EventLoop
    let resolver: HostResolver
    /// One read buffer for every connection: a read is parsed and handed on
    /// before the handler returns, so nothing outlives it.
    let readBuffer: UnsafeMutableRawBufferPointer
    /// Idle connections by origin, the most recently used last. Each
    /// origin's list is an object, changed where it is: a list changed
    /// through the dictionary's subscript went through a coroutine whose
    /// frame was allocated, twice a request.
    @exclusivity(unchecked) private var idle: [Origin: IdleConnections] = [:]
    /// Every open connection, by its token.
    @exclusivity(unchecked) private var open: [EventLoop.Token: HTTP1Connection] = [:]
    /// Idle connections kept per origin; more are closed.
    static let idleLimit = 256

    init(loop: EventLoop) {
        self.loop = loop
        resolver = HostResolver(loop: loop)
        readBuffer = .allocate(byteCount: 256 * 1024, alignment: 16)
    }

    deinit {
        readBuffer.deallocate()
    }

    func start(_ request: HopRequest, delegate: any HopDelegate) -> any HopHandle {
        let hop = HTTP1Hop(request: request, delegate: delegate, transport: self)
        hop.begin()
        return hop
    }

    func closeAll() {
        for connection in Array(open.values) { connection.close() }
        idle.removeAll()
    }

    /// Connections open now (idle and busy).
    var openCount: Int { open.count }

    // MARK: - The pool

    /// An idle connection to `origin`, taken out of the pool.
    func checkOut(_ origin: Origin) -> HTTP1Connection? {
        // An origin's list stays when empty: it is about to be used again.
        idle[origin]?.connections.popLast()
    }

    func checkIn(_ connection: HTTP1Connection) {
        guard let list = idle[connection.origin] else {
            idle[connection.origin] = IdleConnections(connection)
            return
        }
        guard list.connections.count < Self.idleLimit else { return connection.close() }
        list.connections.append(connection)
    }

    /// Opens a socket to `address` (or to the Unix socket at `socketPath`)
    /// and registers it. Returns the connection and whether it is already
    /// connected, or the errno value.
    func connect(to address: IPAddress?, socketPath: String? = nil, origin: Origin) -> Result<(HTTP1Connection, connected: Bool), SystemCallError> {
        var status: Int32 = 0
        let fd: Int32
        if let socketPath {
            fd = csh_unix_connect(socketPath, &status)
        } else if let address {
            fd = address.withBytes { csh_tcp_connect(address.family, $0, UInt16(origin.port), &status) }
        } else {
            return .failure(SystemCallError("connect", code: EINVAL))
        }
        guard fd >= 0 else { return .failure(SystemCallError("connect", code: status)) }
        let connection = HTTP1Connection(fd: fd, token: loop.makeToken(), origin: origin, transport: self)
        // TCP: its responses carry the kernel's receive stamps, so the
        // loop may defer reading them (EventLoop), once it is connected.
        if socketPath == nil { connection.stamped = csh_stamp_receives(fd) == 0 }
        open[connection.token] = connection
        let events = csh_epollin() | (status == 0 ? 0 : csh_epollout())
        connection.watchingWrite = status != 0
        loop.register(fd, token: connection.token, events: events) { [unowned connection] events in
            connection.handle(events)
        }
        return .success((connection, status == 0))
    }

    fileprivate func forget(_ connection: HTTP1Connection) {
        open.removeValue(forKey: connection.token)
        guard let list = idle[connection.origin] else { return }
        if let index = list.connections.firstIndex(where: { $0 === connection }) {
            list.connections.remove(at: index)
            if list.connections.isEmpty { idle[connection.origin] = nil }
        }
    }
}

/// One origin's idle connections, the most recently used last.
private final class IdleConnections {
    @exclusivity(unchecked) var connections: [HTTP1Connection]

    init(_ connection: HTTP1Connection) {
        connections = [connection]
    }
}

/// A TCP connection to one origin: busy with one hop at a time, or idle in
/// the pool (where the server closing it, or sending anything unasked,
/// closes it). Loop thread only, as `HTTP1Transport` (and so without
/// run-time exclusivity checks).
final class HTTP1Connection {
    let fd: Int32
    let token: EventLoop.Token
    let origin: Origin
    private unowned let transport: HTTP1Transport
    /// The hop using it; nil while idle.
    @exclusivity(unchecked) var owner: HTTP1Hop?
    /// Responses it carried to their end.
    @exclusivity(unchecked) var served = 0
    @exclusivity(unchecked) var watchingWrite = false
    /// Its reads say when the kernel received the bytes (`csh_read_stamped`).
    @exclusivity(unchecked) var stamped = false
    /// In the loop's deferrable set: it wakes the loop only when nothing
    /// else will within the defer limit (set once connected).
    @exclusivity(unchecked) private(set) var deferrable = false
    @exclusivity(unchecked) private(set) var isClosed = false

    init(fd: Int32, token: EventLoop.Token, origin: Origin, transport: HTTP1Transport) {
        self.fd = fd
        self.token = token
        self.origin = origin
        self.transport = transport
    }

    func handle(_ events: UInt32) {
        if let owner {
            owner.connectionEvent(events)
        } else {
            // Idle: the server closed it, or sent what nobody asked for.
            close()
        }
    }

    func watchWrite(_ on: Bool) {
        guard on != watchingWrite, !isClosed else { return }
        watchingWrite = on
        transport.loop.modify(fd, token: token, events: csh_epollin() | (on ? csh_epollout() : 0), deferrable: deferrable)
    }

    /// Connected and stamped: its reads may wait for the loop's next
    /// wake-up (its timings come from the stamps).
    func deferReads() {
        guard stamped, !deferrable, !isClosed else { return }
        deferrable = true
        transport.loop.makeDeferrable(fd, token: token, events: csh_epollin() | (watchingWrite ? csh_epollout() : 0))
    }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        owner = nil
        transport.loop.unregister(fd, token: token, deferrable: deferrable)
        Glibc.close(fd)
        transport.forget(self)
    }
}

/// One request and response over HTTP/1.1: finds or opens a connection,
/// writes the request, parses the response and hands it to its delegate.
/// Loop thread only, as `HTTP1Transport` (and so without run-time
/// exclusivity checks).
final class HTTP1Hop: HopHandle {
    private let request: HopRequest
    @exclusivity(unchecked) private var delegate: (any HopDelegate)?
    private unowned let transport: HTTP1Transport
    private let started = ContinuousClock.now
    @exclusivity(unchecked) private var timings = HopTimings()
    @exclusivity(unchecked) private var phase = Phase.resolving
    @exclusivity(unchecked) private var connection: HTTP1Connection?
    /// Whether the connection was used before (a failure before any byte
    /// of the response is then retried once on a new one).
    @exclusivity(unchecked) private var reused = false
    @exclusivity(unchecked) private var retried = false
    @exclusivity(unchecked) private var parser: HTTP1ResponseParser
    @exclusivity(unchecked) private var output: [UInt8] = []
    @exclusivity(unchecked) private var outputOffset = 0
    @exclusivity(unchecked) private var upload: (fd: Int32, offset: Int, remaining: Int64)?
    @exclusivity(unchecked) private var sentAll = false
    /// The step sent `Connection: close`: the connection is not kept.
    @exclusivity(unchecked) private var closesConnection = false
    @exclusivity(unchecked) private var version = "1.1"
    @exclusivity(unchecked) private var lastActivity = ContinuousClock.now
    @exclusivity(unchecked) private var idleTimer: EventLoop.Token?
    /// `connect-timeout`: cancelled once connected.
    @exclusivity(unchecked) private var connectTimer: EventLoop.Token?
    /// The pool's key: the origin, and how it is reached.
    private let poolOrigin: Origin

    private enum Phase {
        case resolving
        case connecting(addresses: [IPAddress], index: Int, lastError: Int32)
        case exchanging
        case ended
    }

    init(request: HopRequest, delegate: any HopDelegate, transport: HTTP1Transport) {
        self.request = request
        self.delegate = delegate
        self.transport = transport
        parser = HTTP1ResponseParser(isHead: request.method == "HEAD")
        poolOrigin = request.url.origin.routed(request.transport.route(for: request.url))
    }

    func begin() {
        if let idleTimeout = request.idleTimeout { armIdleTimer(idleTimeout) }
        if let pooled = transport.checkOut(poolOrigin) {
            reused = true
            attach(pooled)
            return
        }
        if let limit = request.transport.connectTimeout { armConnectTimer(limit) }
        resolveAndConnect()
    }

    /// Fails the hop with kind `timeout` when no connection is made within
    /// `limit` (the lookup included, as curl counts it).
    private func armConnectTimer(_ limit: Duration) {
        connectTimer = transport.loop.schedule(after: limit) { [weak self] in
            guard let self, !self.isEnded else { return }
            self.connectTimer = nil
            switch self.phase {
            case .resolving, .connecting:
                let target = self.request.transport.unixSocket.map { "the Unix socket \($0)" } ?? self.request.url.authority
                self.end(
                    .failed(
                        HopFailure(
                            kind: .timeout,
                            message: "could not connect to \(target) within \(DurationText.format(limit)) (connect-timeout)")))
            case .exchanging, .ended:
                break
            }
        }
    }

    func cancel() {
        guard !isEnded else { return }
        phase = .ended
        delegate = nil
        cleanUp()
        connection?.close()
        connection = nil
    }

    private var isEnded: Bool {
        if case .ended = phase { return true }
        return false
    }

    // MARK: - Connecting

    private func resolveAndConnect() {
        phase = .resolving
        if let socketPath = request.transport.unixSocket {
            switch transport.connect(to: nil, socketPath: socketPath, origin: poolOrigin) {
            case .success(let (connection, connected)):
                phase = .connecting(addresses: [], index: 0, lastError: 0)
                connection.owner = self
                self.connection = connection
                if connected { self.connected() }
            case .failure(let error):
                end(.failed(.network("could not connect to the Unix socket \(socketPath) (\(Self.reason(error.code)))")))
            }
            return
        }
        if let text = request.transport.address(for: request.url.host, port: request.url.origin.port) {
            // `resolve`: no lookup.
            guard let address = IPAddress.numeric(text) else {
                end(.failed(.network("resolve: '\(text)' is not an IP address")))
                return
            }
            connect([address], from: 0, lastError: 0)
            return
        }
        transport.resolver.resolve(request.url.host) { [self] answer in
            guard !isEnded else { return }
            switch answer {
            case .failure(let failure):
                end(.failed(failure))
            case .success(let addresses):
                timings.dns = started.duration(to: .now)
                connect(addresses, from: 0, lastError: 0)
            }
        }
    }

    private func connect(_ addresses: [IPAddress], from index: Int, lastError: Int32) {
        var lastError = lastError
        var index = index
        while index < addresses.count {
            switch transport.connect(to: addresses[index], origin: poolOrigin) {
            case .success(let (connection, connected)):
                phase = .connecting(addresses: addresses, index: index, lastError: lastError)
                connection.owner = self
                self.connection = connection
                if connected { self.connected() }
                return
            case .failure(let error):
                lastError = error.code
                index += 1
            }
        }
        end(.failed(.network("could not connect to \(request.url.authority) (\(Self.reason(lastError)))")))
    }

    private func connected() {
        if let connectTimer {
            transport.loop.cancelTimer(connectTimer)
            self.connectTimer = nil
        }
        timings.connect = started.duration(to: .now)
        timings.tls = timings.connect
        if timings.dns > timings.connect { timings.dns = timings.connect }
        guard let connection else { return }
        connection.deferReads()
        attach(connection)
    }

    private func attach(_ connection: HTTP1Connection) {
        connection.owner = self
        self.connection = connection
        phase = .exchanging
        if reused {
            let now = started.duration(to: .now)
            timings.dns = now
            timings.connect = now
            timings.tls = now
        }
        writeHead()
        flush()
    }

    static func reason(_ code: Int32) -> String {
        switch code {
        case ECONNREFUSED: return "connection refused"
        case ETIMEDOUT: return "connection timed out"
        case EHOSTUNREACH: return "no route to host"
        case ENETUNREACH: return "network unreachable"
        case ECONNRESET: return "connection reset by the server"
        case EPIPE: return "the server closed the connection"
        default: return systemReason(code)
        }
    }

    // MARK: - Events

    func connectionEvent(_ events: UInt32) {
        switch phase {
        case .connecting(let addresses, let index, _):
            let error = connection.map { csh_socket_error($0.fd) } ?? ECONNREFUSED
            if error == 0 && events & (csh_epollerr() | csh_epollhup()) == 0 {
                connected()
            } else if error != 0 || events & (csh_epollerr() | csh_epollhup()) != 0 {
                connection?.close()
                connection = nil
                connect(addresses, from: index + 1, lastError: error == 0 ? ECONNREFUSED : error)
            }
        case .exchanging:
            if events & csh_epollout() != 0, !sentAll { flush() }
            guard !isEnded else { return }
            if events & (csh_epollin() | csh_epollerr() | csh_epollhup()) != 0 { readResponse() }
        case .resolving, .ended:
            break
        }
    }

    // MARK: - Sending

    private func writeHead() {
        var head: [UInt8] = []
        head.reserveCapacity(256)
        Self.add(request.method, to: &head)
        head.append(0x20)
        Self.add(request.url.target, to: &head)
        Self.add(" HTTP/1.1\r\n", to: &head)
        if request.host?.isEmpty != true {
            Self.add("Host: ", to: &head)
            Self.add(request.host ?? request.url.authority, to: &head)
            Self.endLine(&head)
        }
        var closes = false
        for (name, value) in request.headers {
            if name.utf8.count == 10, name.equalsLowercase("connection"), value.lowercased().contains("close") { closes = true }
            Self.add(name, to: &head)
            head.append(UInt8(ascii: ":"))
            head.append(0x20)
            Self.add(value, to: &head)
            Self.endLine(&head)
        }
        if closes { closesConnection = true }
        Self.endLine(&head)
        // `-vv`: the head as these bytes say it, the body after it.
        if let wire = request.wire { wire(WireDump.sentHead(head) + WireDump.sentBody(request.body)) }
        switch request.body {
        case .none:
            break
        case .bytes(let bytes):
            head += bytes
        case .file(let path, let size):
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                end(.failed(.network("could not read the body file \(path): \(systemReason(errno))")))
                return
            }
            upload = (fd, 0, size)
        }
        output = head
        outputOffset = 0
        sentAll = false
    }

    /// Appends a string's bytes in one copy (not byte by byte).
    private static func add(_ text: String, to head: inout [UInt8]) {
        if text.utf8.withContiguousStorageIfAvailable({ head.append(contentsOf: $0) }) == nil { head += text.utf8 }
    }

    private static func endLine(_ head: inout [UInt8]) {
        head.append(0x0D)
        head.append(0x0A)
    }

    private func flush() {
        guard !isEnded, let connection else { return }
        while outputOffset < output.count {
            let written = output.withUnsafeBytes { bytes in
                write(connection.fd, bytes.baseAddress! + outputOffset, bytes.count - outputOffset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN {
                    connection.watchWrite(true)
                    return
                }
                // The server may have answered already (and closed): read
                // what it said before giving up.
                sendFailed(errno)
                return
            }
            outputOffset += written
            lastActivity = .now
        }
        if var file = upload, file.remaining > 0 {
            while file.remaining > 0 {
                var offset = off_t(file.offset)
                let sent = sendfile(connection.fd, file.fd, &offset, Int(min(file.remaining, 1 << 20)))
                if sent < 0 {
                    if errno == EINTR { continue }
                    upload = file
                    if errno == EAGAIN {
                        connection.watchWrite(true)
                        return
                    }
                    sendFailed(errno)
                    return
                }
                if sent == 0 {
                    upload = file
                    end(.failed(.network("the body file ended before its \(file.remaining + Int64(file.offset)) bytes were sent")))
                    return
                }
                file.offset += sent
                file.remaining -= Int64(sent)
                lastActivity = .now
            }
            upload = file
        }
        sentAll = true
        output = []
        closeUpload()
        connection.watchWrite(false)
    }

    private func sendFailed(_ code: Int32) {
        sentAll = true
        connection?.watchWrite(false)
        if retryIfStale() { return }
        // Whatever the server said before it stopped reading comes next.
        readResponse(sendError: code)
    }

    // MARK: - Receiving

    private func readResponse(sendError: Int32? = nil) {
        guard let connection else { return }
        let buffer = transport.readBuffer
        while !isEnded {
            var age: Int64 = -1
            let count =
                connection.stamped
                ? csh_read_stamped(connection.fd, buffer.baseAddress, buffer.count, &age)
                : read(connection.fd, buffer.baseAddress, buffer.count)
            if count > 0 {
                let now = ContinuousClock.now
                // When the kernel received these bytes: a deferred read
                // does not make the server look slower. Never before the
                // hop began (a wall clock stepped forward meanwhile).
                let sinceStart = started.duration(to: now)
                timings.held = age > 0 ? min(.nanoseconds(age), sinceStart) : .zero
                if !parser.started { timings.firstByte = sinceStart - timings.held }
                lastActivity = now
                guard process(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) else { return }
                if count < buffer.count { return }
                continue
            }
            if count == 0 {
                if retryIfStale() { return }
                switch parser.closed() {
                case .end(let reusable):
                    // It ended with the close, whose moment has no stamp.
                    timings.held = .zero
                    finish(reusable: reusable)
                case .failure(let message):
                    end(
                        .failed(
                            .network(
                                sendError.map { "\(message) (\(Self.reason($0)) while sending the request)" }
                                    ?? message)))
                default:
                    break
                }
                return
            }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN {
                if let sendError, !parser.started {
                    end(.failed(.network("could not send the request (\(Self.reason(sendError)))")))
                }
                return
            }
            if retryIfStale() { return }
            end(
                .failed(
                    .network(
                        parser.started
                            ? "the connection failed during the response (\(Self.reason(code)))"
                            : "the connection failed before the response (\(Self.reason(code)))")))
            return
        }
    }

    /// Feeds bytes to the parser and the delegate. False once the hop ended.
    private func process(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while true {
            switch parser.next(bytes, offset: &offset) {
            case .needMore:
                return true
            case .head(let head):
                version = head.version
                guard delegate?.hopHead(head) ?? false else {
                    stop()
                    return false
                }
            case .body(let range):
                guard delegate?.hopBody(UnsafeRawBufferPointer(rebasing: bytes[range])) ?? false else {
                    stop()
                    return false
                }
            case .end(let reusable):
                // Reused only when nothing is left over: no unread byte in
                // this read, and the read did not fill the buffer (more
                // could wait in the socket).
                finish(reusable: reusable && offset == bytes.count && bytes.count < transport.readBuffer.count)
                return false
            case .failure(let message):
                end(.failed(.network(message)))
                return false
            }
        }
    }

    /// A reused connection that fails before any byte of the response was
    /// closed by the server meanwhile: try once more on a new one.
    private func retryIfStale() -> Bool {
        guard reused, !retried, !parser.started, !isEnded else { return false }
        retried = true
        reused = false
        connection?.close()
        connection = nil
        closeUpload()
        parser = HTTP1ResponseParser(isHead: request.method == "HEAD")
        resolveAndConnect()
        return true
    }

    private func finish(reusable: Bool) {
        guard let connection else { return }
        connection.served += 1
        self.connection = nil
        if reusable && sentAll && upload == nil && !closesConnection {
            connection.owner = nil
            connection.watchWrite(false)
            transport.checkIn(connection)
        } else {
            connection.close()
        }
        end(.complete(timings, version: version))
    }

    private func stop() {
        connection?.close()
        connection = nil
        end(.stopped)
    }

    private func end(_ result: HopEnd) {
        guard !isEnded else { return }
        phase = .ended
        cleanUp()
        if let connection {
            connection.close()
            self.connection = nil
        }
        let delegate = self.delegate
        self.delegate = nil
        delegate?.hopEnded(result)
    }

    private func cleanUp() {
        closeUpload()
        if let connectTimer {
            transport.loop.cancelTimer(connectTimer)
            self.connectTimer = nil
        }
        if let idleTimer {
            transport.loop.cancelTimer(idleTimer)
            self.idleTimer = nil
        }
    }

    private func closeUpload() {
        if let upload {
            close(upload.fd)
            self.upload = nil
        }
    }

    // MARK: - The idle timeout

    private func armIdleTimer(_ limit: Duration) {
        let due = lastActivity + limit
        idleTimer = transport.loop.schedule(after: ContinuousClock.now.duration(to: due)) { [weak self] in
            guard let self, !self.isEnded else { return }
            self.idleTimer = nil
            if self.lastActivity.duration(to: .now) >= limit {
                self.end(
                    .failed(
                        HopFailure(
                            kind: .timeout,
                            message: "no data from the server for \(DurationText.format(limit)) (the idle timeout)")))
            } else {
                self.armIdleTimer(limit)
            }
        }
    }
}
