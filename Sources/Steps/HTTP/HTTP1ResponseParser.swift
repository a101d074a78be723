import Glibc

/// A response's status line and headers.
struct ResponseHead: Sendable {
    var status: Int
    /// `1.1`, `1.0` or `2`.
    var version: String
    /// In order, names as received; a name may repeat.
    var headers: [(name: String, value: String)]

    /// The first header of that name, given in lower case (names are
    /// compared without case).
    func value(_ lowercaseName: String) -> String? {
        headers.first { $0.name.equalsLowercase(lowercaseName) }?.value
    }
}

/// Reads an HTTP/1.x response from bytes as they arrive (RFC 9112): the
/// head, then the body framed by `Content-Length`, chunked transfer
/// coding, or the end of the connection. It copies nothing of the body:
/// each `body` event names a range of the bytes it was given.
struct HTTP1ResponseParser {
    enum Event {
        /// More bytes are needed.
        case needMore
        case head(ResponseHead)
        /// Body bytes at this range of the buffer given to `next`.
        case body(Range<Int>)
        /// The response is complete; `reusable` when the connection may
        /// carry another request.
        case end(reusable: Bool)
        case failure(String)
    }

    private enum State {
        case head
        case length(remaining: Int64)
        case chunkSize
        case chunkData(remaining: Int64)
        case chunkDataEnd
        case trailers
        case untilClose
        case done
    }

    /// The largest head accepted.
    static let headLimit = 256 * 1024

    private var state = State.head
    /// Head bytes kept across reads until the blank line arrives.
    private var pending: [UInt8] = []
    private let isHead: Bool
    private var keepAlive = true
    /// Whether anything of the response arrived yet.
    private(set) var started = false
    private var trailerLines = 0
    private var interimResponses = 0
    static let trailerLimit = 1000
    static let interimLimit = 100

    /// `isHead`: the request was HEAD (no body follows the head).
    init(isHead: Bool) {
        self.isHead = isHead
    }

    /// The next event from `buffer`, starting at `offset`, which it moves
    /// past what it used. Call until `needMore` (then read more) or `end`.
    mutating func next(_ buffer: UnsafeRawBufferPointer, offset: inout Int) -> Event {
        if offset < buffer.count { started = true }
        // A loop, not recursion: a server may send many trailer lines or
        // interim responses in one read.
        while true {
            switch state {
            case .head:
                return parseHead(buffer, offset: &offset)
            case .length(let remaining):
                guard offset < buffer.count else { return .needMore }
                let take = Int(min(Int64(buffer.count - offset), remaining))
                let range = offset..<(offset + take)
                offset += take
                state = remaining == Int64(take) ? .done : .length(remaining: remaining - Int64(take))
                return .body(range)
            case .untilClose:
                guard offset < buffer.count else { return .needMore }
                let range = offset..<buffer.count
                offset = buffer.count
                return .body(range)
            case .chunkSize:
                guard let line = takeLine(buffer, offset: &offset) else { return lineOverflow() }
                var size: Int64 = 0
                var digits = 0
                for byte in line {
                    guard let digit = Self.hexValue(byte) else { break }
                    guard size < Int64.max >> 4 else { return .failure("a chunk size is too large") }
                    size = size << 4 | Int64(digit)
                    digits += 1
                }
                guard digits > 0 else { return .failure("a chunk size is not hexadecimal") }
                state = size == 0 ? .trailers : .chunkData(remaining: size)
            case .chunkData(let remaining):
                guard offset < buffer.count else { return .needMore }
                let take = Int(min(Int64(buffer.count - offset), remaining))
                let range = offset..<(offset + take)
                offset += take
                state = remaining == Int64(take) ? .chunkDataEnd : .chunkData(remaining: remaining - Int64(take))
                return .body(range)
            case .chunkDataEnd:
                guard let line = takeLine(buffer, offset: &offset) else { return lineOverflow() }
                guard line.isEmpty else { return .failure("a chunk is longer than its size") }
                state = .chunkSize
            case .trailers:
                guard let line = takeLine(buffer, offset: &offset) else { return lineOverflow() }
                if line.isEmpty {
                    state = .done
                    return .end(reusable: keepAlive)
                }
                trailerLines += 1
                guard trailerLines <= Self.trailerLimit else { return .failure("the response has more than \(Self.trailerLimit) trailer lines") }
            case .done:
                return .end(reusable: keepAlive)
            }
        }
    }

    /// The connection closed: the end of a body read until close, or a
    /// response cut short.
    mutating func closed() -> Event {
        switch state {
        case .untilClose:
            state = .done
            return .end(reusable: false)
        case .done:
            return .end(reusable: false)
        case .head:
            return .failure(started ? "the connection closed in the middle of the response headers"
                                    : "the server closed the connection without answering")
        default:
            return .failure("the connection closed before the end of the response body")
        }
    }

    /// Whether the body is complete once it has been handed out (so the
    /// caller can stop reading).
    var isDone: Bool {
        if case .done = state { return true }
        return false
    }

    private func lineOverflow() -> Event {
        pending.count > 8192 ? .failure("a chunk line is too long") : .needMore
    }

    /// A line (without CR LF) from `pending` plus the buffer, or nil when
    /// its end has not arrived (the start is then kept in `pending`).
    private mutating func takeLine(_ buffer: UnsafeRawBufferPointer, offset: inout Int) -> [UInt8]? {
        var index = offset
        while index < buffer.count, buffer[index] != 0x0A { index += 1 }
        guard index < buffer.count else {
            pending += buffer[offset..<buffer.count]
            offset = buffer.count
            return nil
        }
        var line = pending + buffer[offset..<index]
        pending.removeAll(keepingCapacity: true)
        offset = index + 1
        if line.last == 0x0D { line.removeLast() }
        return line
    }

    private mutating func parseHead(_ buffer: UnsafeRawBufferPointer, offset: inout Int) -> Event {
        // Find the blank line that ends the head: in the buffer alone when
        // nothing is pending (the usual case), else after what is.
        let start = offset
        var end: Int?
        var index = start
        if !pending.isEmpty {
            // The blank line may straddle the two.
            let tail = pending.suffix(3)
            var joined = Array(tail)
            joined += buffer[start..<min(buffer.count, start + 3)]
            if let found = Self.blankLine(in: joined[...]) {
                let consumedFromBuffer = found - tail.count
                if consumedFromBuffer >= 0 { end = start + consumedFromBuffer }
            }
        }
        if end == nil {
            // From line end to line end (memchr), not byte by byte.
            while let newline = Self.newline(in: buffer, from: index) {
                if newline + 1 < buffer.count, buffer[newline + 1] == 0x0A {
                    end = newline + 2
                    break
                }
                if newline + 2 < buffer.count, buffer[newline + 1] == 0x0D, buffer[newline + 2] == 0x0A {
                    end = newline + 3
                    break
                }
                index = newline + 1
            }
        }
        guard let end else {
            pending += buffer[start..<buffer.count]
            offset = buffer.count
            return pending.count > Self.headLimit ? .failure("the response headers are larger than 256 KiB") : .needMore
        }
        let head: ResponseHead
        if pending.isEmpty {
            guard let parsed = Self.parseHeadBytes(UnsafeRawBufferPointer(rebasing: buffer[start..<end])) else {
                return .failure("the response is not HTTP/1.x (the status line or a header is malformed)")
            }
            head = parsed
        } else {
            let whole = pending + buffer[start..<end]
            pending.removeAll(keepingCapacity: true)
            guard let parsed = whole.withUnsafeBytes({ Self.parseHeadBytes($0) }) else {
                return .failure("the response is not HTTP/1.x (the status line or a header is malformed)")
            }
            head = parsed
        }
        offset = end
        if head.status >= 100, head.status < 200, head.status != 101 {
            // An interim response (100 Continue, 103 Early Hints): the real
            // one follows; `next` comes back here, with no recursion.
            interimResponses += 1
            guard interimResponses <= Self.interimLimit else {
                return .failure("the server sent more than \(Self.interimLimit) interim (1xx) responses")
            }
            return offset < buffer.count ? parseHead(buffer, offset: &offset) : .needMore
        }
        return frame(head)
    }

    /// The index just past a blank line (LF LF or LF CR LF) in `bytes`.
    private static func blankLine(in bytes: ArraySlice<UInt8>) -> Int? {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if bytes[index] == 0x0A {
                if index + 1 < bytes.endIndex, bytes[index + 1] == 0x0A { return index + 2 - bytes.startIndex }
                if index + 2 < bytes.endIndex, bytes[index + 1] == 0x0D, bytes[index + 2] == 0x0A {
                    return index + 3 - bytes.startIndex
                }
            }
            index += 1
        }
        return nil
    }

    /// Decides how the body is framed (RFC 9112 §6.3).
    private mutating func frame(_ head: ResponseHead) -> Event {
        var contentLength: Int64?
        var chunked = false
        var lengthConflict = false
        var sawKeepAlive = false
        for (name, value) in head.headers {
            switch name.utf8.count {
            case 10 where name.equalsLowercase("connection"):
                Self.forEachElement(of: value) { option in
                    if option.equalsLowercase("close") { keepAlive = false }
                    if option.equalsLowercase("keep-alive") { sawKeepAlive = true }
                }
            case 14 where name.equalsLowercase("content-length"):
                guard let length = Int64(value.trimmingSpaces), length >= 0 else {
                    lengthConflict = true
                    continue
                }
                if let contentLength, contentLength != length { lengthConflict = true }
                contentLength = length
            case 17 where name.equalsLowercase("transfer-encoding"):
                var last: Substring = ""
                Self.forEachElement(of: value) { last = $0 }
                chunked = last.equalsLowercase("chunked")
                if !chunked { keepAlive = false }
            default:
                break
            }
        }
        if head.version == "1.0" && !sawKeepAlive { keepAlive = false }
        // Both framings at once (RFC 9112 §6.3): chunked wins and the
        // connection is not used again.
        if chunked && contentLength != nil { keepAlive = false }
        if isHead || head.status == 204 || head.status == 304 || head.status == 101 {
            state = .done
        } else if chunked {
            state = .chunkSize
        } else if lengthConflict {
            return .failure("the response has an invalid or conflicting Content-Length")
        } else if let contentLength {
            state = contentLength == 0 ? .done : .length(remaining: contentLength)
        } else {
            keepAlive = false
            state = .untilClose
        }
        return .head(head)
    }

    /// Each comma-separated element of a header's value, without spaces or
    /// tabs at either end (found by bytes: this runs for every response).
    private static func forEachElement(of value: String, _ body: (Substring) -> Void) {
        var rest = Substring(value)
        while let comma = rest.utf8.firstIndex(of: UInt8(ascii: ",")) {
            body(rest[..<comma].trimmingSpaces)
            rest = rest[rest.utf8.index(after: comma)...]
        }
        body(rest.trimmingSpaces)
    }

    /// Status line and header lines, up to and including the blank line.
    static func parseHeadBytes(_ bytes: UnsafeRawBufferPointer) -> ResponseHead? {
        var lineStart = 0
        /// The next line without its line end, or nil at the end.
        func nextLine() -> UnsafeRawBufferPointer? {
            guard let index = newline(in: bytes, from: lineStart) else { return nil }
            var lineEnd = index
            if lineEnd > lineStart, bytes[lineEnd - 1] == 0x0D { lineEnd -= 1 }
            let line = UnsafeRawBufferPointer(rebasing: bytes[lineStart..<lineEnd])
            lineStart = index + 1
            return line
        }
        guard let statusLine = nextLine(), statusLine.count >= 12,
              statusLine.starts(with: "HTTP/1.".utf8), statusLine[8] == 0x20 else { return nil }
        let minor = statusLine[7]
        guard minor == UInt8(ascii: "0") || minor == UInt8(ascii: "1") else { return nil }
        var status = 0
        for index in 9..<12 {
            let byte = statusLine[index]
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            status = status * 10 + Int(byte - 0x30)
        }
        guard statusLine.count == 12 || statusLine[12] == 0x20 else { return nil }
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(12)
        while let line = nextLine(), !line.isEmpty {
            if line[0] == 0x20 || line[0] == 0x09 {
                // An obsolete folded line continues the previous value.
                guard !headers.isEmpty else { return nil }
                headers[headers.count - 1].value += " " + String(decoding: trimmed(line), as: UTF8.self)
                continue
            }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > 0 else { return nil }
            let name = UnsafeRawBufferPointer(rebasing: line[0..<colon])
            guard name.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
            let value = trimmed(UnsafeRawBufferPointer(rebasing: line[(colon + 1)...]))
            // A bare CR or a NUL in a value (RFC 9112 §2.2) could reach a
            // later request's headers (a cookie): refused.
            guard !value.contains(where: { $0 == 0x0D || $0 == 0x00 }) else { return nil }
            headers.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
        }
        return ResponseHead(status: status, version: minor == UInt8(ascii: "1") ? "1.1" : "1.0", headers: headers)
    }

    /// The index of the first LF in `bytes` at or after `start`.
    private static func newline(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard start < bytes.count, let base = bytes.baseAddress,
              let found = memchr(base + start, 0x0A, bytes.count - start) else { return nil }
        return base.distance(to: UnsafeRawPointer(found))
    }

    private static func trimmed(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        var start = 0, end = bytes.count
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
        while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        return UnsafeRawBufferPointer(rebasing: bytes[start..<end])
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: return byte - 0x30
        case 0x41...0x46: return byte - 0x41 + 10
        case 0x61...0x66: return byte - 0x61 + 10
        default: return nil
        }
    }
}

extension StringProtocol {
    /// Without spaces and tabs at either end (compared as bytes: both are
    /// ASCII, so the ends stay on character boundaries).
    var trimmingSpaces: Substring {
        let text = Substring(self)
        let bytes = text.utf8
        var start = bytes.startIndex, end = bytes.endIndex
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start = bytes.index(after: start) }
        while start < end {
            let before = bytes.index(before: end)
            guard bytes[before] == 0x20 || bytes[before] == 0x09 else { break }
            end = before
        }
        return text[start..<end]
    }
}
