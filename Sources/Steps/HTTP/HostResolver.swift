import CSystemShims
import Dispatch
import RunnerSystem

/// A resolved address: AF_INET (4 bytes used) or AF_INET6 (16).
struct IPAddress: Hashable {
    var family: Int32
    var bytes: (UInt64, UInt64)

    static func == (a: IPAddress, b: IPAddress) -> Bool {
        a.family == b.family && a.bytes.0 == b.bytes.0 && a.bytes.1 == b.bytes.1
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(family)
        hasher.combine(bytes.0)
        hasher.combine(bytes.1)
    }

    init(family: Int32, raw: UnsafePointer<UInt8>) {
        self.family = family
        var bytes: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &bytes) { $0.copyMemory(from: UnsafeRawBufferPointer(start: raw, count: 16)) }
        self.bytes = bytes
    }

    /// Calls `body` with the 16 address bytes.
    func withBytes<R>(_ body: (UnsafePointer<UInt8>) -> R) -> R {
        withUnsafeBytes(of: bytes) { body($0.bindMemory(to: UInt8.self).baseAddress!) }
    }

    /// A numeric address (`127.0.0.1`, `::1`), or nil for a name.
    static func numeric(_ text: String) -> IPAddress? {
        var raw = [UInt8](repeating: 0, count: 16)
        let family = csh_parse_address(text, &raw)
        guard family != 0 else { return nil }
        return raw.withUnsafeBufferPointer { IPAddress(family: family, raw: $0.baseAddress!) }
    }
}

/// Host names to addresses, for the HTTP/1.1 client. Numeric hosts need
/// no lookup; names go to getaddrinfo on a Dispatch worker (it blocks), and
/// the answer is kept for a minute, as curl keeps its DNS cache. Requests
/// for a name already being looked up wait for that lookup. Loop thread
/// only.
final class HostResolver {
    typealias Answer = Result<[IPAddress], HopFailure>

    private let loop: EventLoop
    private var cache: [String: (addresses: [IPAddress], expires: ContinuousClock.Instant)] = [:]
    private var waiting: [String: [(Answer) -> Void]] = [:]
    static let lifetime = Duration.seconds(60)

    init(loop: EventLoop) {
        self.loop = loop
    }

    /// Calls `done` with the addresses of `host`: at once when it is
    /// numeric or known, else on the loop thread once looked up.
    func resolve(_ host: String, _ done: @escaping (Answer) -> Void) {
        if let address = IPAddress.numeric(host) {
            done(.success([address]))
            return
        }
        if let known = cache[host], known.expires > .now {
            done(.success(known.addresses))
            return
        }
        if waiting[host] != nil {
            waiting[host]!.append(done)
            return
        }
        waiting[host] = [done]
        let loop = self.loop
        let box = LoopBound(self, loop: loop)
        DispatchQueue.global().async {
            let answer = Self.lookUp(host)
            loop.execute { box.value.finish(host, answer) }
        }
    }

    private func finish(_ host: String, _ answer: Answer) {
        if case .success(let addresses) = answer { cache[host] = (addresses, .now + Self.lifetime) }
        let callbacks = waiting.removeValue(forKey: host) ?? []
        for callback in callbacks { callback(answer) }
    }

    private static func lookUp(_ host: String) -> Answer {
        let capacity = 16
        var families = [Int32](repeating: 0, count: capacity)
        var raw = [UInt8](repeating: 0, count: 16 * capacity)
        var message = [CChar](repeating: 0, count: 256)
        let count = csh_resolve(host, &families, &raw, Int32(capacity), &message, message.count)
        guard count > 0 else {
            return .failure(.network("could not find the host '\(host)' (DNS: \(cText(message)))"))
        }
        return .success(
            raw.withUnsafeBufferPointer { buffer in
                (0..<Int(count)).map { IPAddress(family: families[$0], raw: buffer.baseAddress! + 16 * $0) }
            })
    }
}
