import CSystemShims
import Glibc
package import PromiseEngine

/// A small HTTP/1.1 server on the event loop, for a run's own endpoints
/// (`--metrics-listen`): it answers each GET with what `respond` gives and
/// closes the connection (`Connection: close`). No thread of its own and
/// none per request: the listening socket and every connection are
/// descriptors of `EventLoop.shared`, and `respond` runs on the loop, so it
/// must be quick (a snapshot rendered to text).
package final class LoopHTTPServer: Sendable {
    /// What a request gets.
    package struct Response: Sendable {
        /// The status code (200, 404, ...).
        package var status: Int
        /// The `Content-Type` header's value.
        package var contentType: String
        /// The body, sent as UTF-8 with its `Content-Length`.
        package var body: String

        /// A response of `status` with `body` as `contentType`.
        package init(status: Int, contentType: String = "text/plain; charset=utf-8", body: String) {
            self.status = status
            self.contentType = contentType
            self.body = body
        }
    }

    /// An address `listen` could not take, in the words of the system.
    package struct ListenError: Error, Sendable, CustomStringConvertible {
        /// What went wrong, naming the address.
        package var description: String
    }

    private let loop: EventLoop
    private let listener: Int32
    private let token: EventLoop.Token
    private let respond: @Sendable (_ method: String, _ path: String) -> Response
    private let confined: LoopBound<Confined>
    /// The port it listens on (the one asked for, or the one given for 0).
    package let port: UInt16

    /// What only the loop thread touches (the handlers and the work given
    /// to `execute`).
    private final class Confined {
        var connections: [EventLoop.Token: Connection] = [:]
        var closed = false
    }

    /// One accepted connection: the request read so far, then the response
    /// being written.
    private final class Connection {
        let fd: Int32
        let token: EventLoop.Token
        var input: [UInt8] = []
        var output: [UInt8] = []
        var written = 0
        var idleTimer: EventLoop.Token?

        init(fd: Int32, token: EventLoop.Token) {
            self.fd = fd
            self.token = token
        }
    }

    /// How much of a request head is read before the connection is closed.
    private static let headLimit = 16 * 1024

    private init(loop: EventLoop, listener: Int32, port: UInt16, respond: @escaping @Sendable (String, String) -> Response) {
        self.loop = loop
        self.listener = listener
        self.port = port
        self.respond = respond
        token = loop.makeToken()
        confined = LoopBound(handingOver: Confined(), to: loop)
    }

    /// Listens on exactly `address` (`127.0.0.1:9464`, `[::1]:9464`: a
    /// literal address and a port) and serves from then on.
    package static func listen(
        _ address: String, loop: EventLoop = .shared,
        respond: @escaping @Sendable (_ method: String, _ path: String) -> Response
    )
        -> Result<LoopHTTPServer, ListenError>
    {
        let malformed = ListenError(description: "'\(address)' is not an address and a port (127.0.0.1:9464, [::1]:9464)")
        guard let (family, host, port) = parse(address) else { return .failure(malformed) }
        var bytes = in6_addr()
        guard inet_pton(family, host, &bytes) == 1 else { return .failure(malformed) }
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failure(ListenError(description: "cannot listen on \(address): \(systemReason(errno))")) }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound: Int32
        if family == AF_INET6 {
            var socketAddress = sockaddr_in6()
            socketAddress.sin6_family = sa_family_t(AF_INET6)
            socketAddress.sin6_port = port.bigEndian
            socketAddress.sin6_addr = bytes
            bound = Self.bind(fd, &socketAddress)
        } else {
            var socketAddress = sockaddr_in()
            socketAddress.sin_family = sa_family_t(AF_INET)
            socketAddress.sin_port = port.bigEndian
            // inet_pton wrote the 4 bytes of an IPv4 address first.
            socketAddress.sin_addr = withUnsafeBytes(of: bytes) { $0.loadUnaligned(as: in_addr.self) }
            bound = Self.bind(fd, &socketAddress)
        }
        guard bound == 0, Glibc.listen(fd, 64) == 0 else {
            let reason = systemReason(errno)
            Glibc.close(fd)
            return .failure(ListenError(description: "cannot listen on \(address): \(reason)"))
        }
        let server = LoopHTTPServer(loop: loop, listener: fd, port: port == 0 ? boundPort(fd) : port, respond: respond)
        loop.register(fd, token: server.token, events: csh_epollin()) { [server] _ in server.acceptAll() }
        return .success(server)
    }

    /// Binds `fd` to `socketAddress` (a `sockaddr_in` or `sockaddr_in6`).
    private static func bind<Address>(_ fd: Int32, _ socketAddress: inout Address) -> Int32 {
        withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, socklen_t(MemoryLayout<Address>.size)) }
        }
    }

    /// `HOST:PORT` or `[HOST]:PORT`: the family, the host and the port.
    static func parse(_ address: String) -> (Int32, String, UInt16)? {
        guard let colon = address.lastIndex(of: ":"), let port = UInt16(address[address.index(after: colon)...]) else { return nil }
        var host = String(address[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
            return host.isEmpty ? nil : (AF_INET6, host, port)
        }
        guard !host.isEmpty, !host.contains(":") else { return nil }
        return (AF_INET, host, port)
    }

    private static func boundPort(_ fd: Int32) -> UInt16 {
        var storage = sockaddr_in6()
        var length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        let got = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard got == 0 else { return 0 }
        // sin_port and sin6_port sit at the same offset.
        return UInt16(bigEndian: storage.sin6_port)
    }

    /// Closes the server after `wait`, answering what comes meanwhile (a
    /// scraper's last look at a run that ended); the promise is fulfilled
    /// once it is closed.
    package func close(after wait: Duration) -> Promise<Void> {
        let (promise, resolver) = Promise<Void>.pending()
        loop.execute { [self] in
            loop.schedule(after: wait) { [self] in
                shut()
                resolver.fulfill(())
            }
        }
        return promise
    }

    // MARK: - On the loop thread

    private func shut() {
        precondition(loop.inLoop)
        guard !confined.value.closed else { return }
        confined.value.closed = true
        loop.unregister(listener, token: token)
        Glibc.close(listener)
        for connection in confined.value.connections.values { drop(connection) }
    }

    private func acceptAll() {
        precondition(loop.inLoop)
        while !confined.value.closed {
            let fd = csh_accept(listener)
            if fd < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            let connection = Connection(fd: fd, token: loop.makeToken())
            confined.value.connections[connection.token] = connection
            // A client that never finishes its request does not hold a
            // descriptor for long.
            connection.idleTimer = loop.schedule(after: .seconds(10)) { [self] in drop(connection) }
            loop.register(fd, token: connection.token, events: csh_epollin()) { [self] events in
                handle(connection, events: events)
            }
        }
    }

    private func handle(_ connection: Connection, events: UInt32) {
        guard confined.value.connections[connection.token] != nil else { return }
        if !connection.output.isEmpty {
            writeOut(connection)
            return
        }
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(connection.fd, $0.baseAddress, $0.count) }
            if count > 0 {
                connection.input.append(contentsOf: chunk[0..<count])
                if let end = Self.headEnd(connection.input) {
                    answer(connection, head: Array(connection.input[..<end]))
                    return
                }
                if connection.input.count > Self.headLimit { return drop(connection) }
                continue
            }
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK { return }
            // The client closed (or failed) before a whole request.
            return drop(connection)
        }
    }

    /// Where the blank line after the request's headers ends, if it came.
    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index + 4
        }
        return nil
    }

    private func answer(_ connection: Connection, head: [UInt8]) {
        let requestLine = head.prefix { $0 != 13 }.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: true)
        let response: Response
        if requestLine.count == 3 {
            let method = String(decoding: requestLine[0], as: UTF8.self)
            let target = String(decoding: requestLine[1], as: UTF8.self)
            let path = String(target.prefix { $0 != "?" })
            response =
                method == "GET" || method == "HEAD"
                ? respond(method, path)
                : Response(status: 405, body: "only GET\n")
        } else {
            response = Response(status: 400, body: "bad request\n")
        }
        let body = Array(response.body.utf8)
        let head =
            "HTTP/1.1 \(response.status) \(Self.reason(response.status))\r\n"
            + "Content-Type: \(response.contentType)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        connection.output = Array(head.utf8)
        if requestLine.first.map({ String(decoding: $0, as: UTF8.self) }) != "HEAD" { connection.output += body }
        connection.input = []
        writeOut(connection)
    }

    private func writeOut(_ connection: Connection) {
        while connection.written < connection.output.count {
            let count = connection.output.withUnsafeBytes { buffer in
                write(connection.fd, buffer.baseAddress! + connection.written, buffer.count - connection.written)
            }
            if count > 0 {
                connection.written += count
                continue
            }
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                loop.modify(connection.fd, token: connection.token, events: csh_epollout())
                return
            }
            return drop(connection)
        }
        drop(connection)
    }

    private func drop(_ connection: Connection) {
        guard confined.value.connections.removeValue(forKey: connection.token) != nil else { return }
        if let timer = connection.idleTimer { loop.cancelTimer(timer) }
        loop.unregister(connection.fd, token: connection.token)
        Glibc.close(connection.fd)
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 400: "Bad Request"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        default: "Status"
        }
    }
}
