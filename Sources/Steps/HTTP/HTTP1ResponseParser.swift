import Glibc
import WorkflowModel

/// A response's status line and headers.
struct ResponseHead: Sendable {
    var status: Int
    /// `1.1`, `1.0` or `2`.
    var version: String
    /// The status line's reason phrase as sent (`OK`, `Not Found`);
    /// empty when there is none (HTTP/2). Shown by `-vv` only.
    var reason = ""
    /// In order, names as received; a name may repeat.
    var headers: HeaderList
    /// What the client reads of the headers (where the ones it looks up
    /// are, how the body is framed), found once, as the head was parsed.
    let facts: HeaderFacts

    /// A head whose headers were received as text (libcurl's).
    init(status: Int, version: String, headers: [(name: String, value: String)]) {
        var facts = HeaderFacts()
        for (index, header) in headers.enumerated() {
            var name = header.name
            var value = header.value
            name.withUTF8 { name in
                value.withUTF8 { value in facts.add(name: UnsafeRawBufferPointer(name), value: UnsafeRawBufferPointer(value), at: index) }
            }
        }
        self.init(status: status, version: version, headers: HeaderList(headers), facts: facts)
    }

    init(status: Int, version: String, headers: HeaderList, facts: HeaderFacts) {
        self.status = status
        self.version = version
        self.headers = headers
        self.facts = facts
    }

    /// The first header of that name, given in lower case (names are
    /// compared without case).
    func value(_ lowercaseName: String) -> String? {
        headers.first { $0.name.equalsLowercase(lowercaseName) }?.value
    }

    /// The first header of a name the client reads, without a search.
    func value(_ header: KnownHeader) -> String? {
        facts.position(of: header).map { headers.value(at: $0) }
    }
}

/// The headers a client reads of every response.
enum KnownHeader: Int, CaseIterable {
    case connection, contentLength, transferEncoding, contentType, contentEncoding, location

    /// The header a name (received as bytes, in any case) is, if any.
    static func named(_ name: UnsafeRawBufferPointer) -> KnownHeader? {
        let candidate: KnownHeader
        switch name.count {
        case 8: candidate = .location
        case 10: candidate = .connection
        case 12: candidate = .contentType
        case 14: candidate = .contentLength
        case 16: candidate = .contentEncoding
        case 17: candidate = .transferEncoding
        default: return nil
        }
        return HeaderFacts.equalsLowercase(name, candidate.lowercaseName) ? candidate : nil
    }

    var lowercaseName: StaticString {
        switch self {
        case .connection: return "connection"
        case .contentLength: return "content-length"
        case .transferEncoding: return "transfer-encoding"
        case .contentType: return "content-type"
        case .contentEncoding: return "content-encoding"
        case .location: return "location"
        }
    }
}

/// What a client reads of a response's headers, gathered header by header
/// from their bytes: where the first of each known name is, and how the
/// body is framed (RFC 9112 §6.3).
struct HeaderFacts: Sendable {
    /// Index in the headers of the first of each known name; -1: none.
    private var positions = SIMD8<Int32>(repeating: -1)
    /// `Content-Length`, when every one given agrees and is a number.
    private(set) var contentLength: Int64?
    /// A `Content-Length` that is not a number, or two that differ.
    private(set) var lengthConflict = false
    /// The last `Transfer-Encoding` ends in `chunked`.
    private(set) var chunked = false
    /// A `Transfer-Encoding` that does not end in `chunked` (the body then
    /// runs to the connection's end).
    private(set) var notChunked = false
    /// `Connection: close`.
    private(set) var close = false
    /// `Connection: keep-alive` (an HTTP/1.0 connection stays open only so).
    private(set) var keepAlive = false

    func position(of header: KnownHeader) -> Int? {
        let index = positions[header.rawValue]
        return index < 0 ? nil : Int(index)
    }

    /// Notes the header at `index`, `name: value` (the value trimmed).
    mutating func add(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, at index: Int) {
        guard let header = KnownHeader.named(name) else { return }
        if positions[header.rawValue] < 0, index <= Int(Int32.max) { positions[header.rawValue] = Int32(index) }
        switch header {
        case .connection:
            Self.forEachElement(of: value) { option in
                if Self.equalsLowercase(option, "close") { close = true }
                if Self.equalsLowercase(option, "keep-alive") { keepAlive = true }
            }
        case .contentLength:
            guard let length = Self.decimal(Self.trimmed(value)) else {
                lengthConflict = true
                return
            }
            if let contentLength, contentLength != length { lengthConflict = true }
            contentLength = length
        case .transferEncoding:
            var last = UnsafeRawBufferPointer(start: nil, count: 0)
            Self.forEachElement(of: value) { last = $0 }
            chunked = Self.equalsLowercase(last, "chunked")
            if !chunked { notChunked = true }
        case .contentType, .contentEncoding, .location:
            break
        }
    }

    /// Whether `bytes` equal `lowercase` (lower-case ASCII), ASCII letters
    /// compared without case.
    static func equalsLowercase(_ bytes: UnsafeRawBufferPointer, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        let other = lowercase.utf8Start
        for index in 0..<bytes.count {
            let byte = bytes[index]
            let expected = other[index]
            if byte == expected { continue }
            guard byte >= 0x41, byte <= 0x5A, byte | 0x20 == expected else { return false }
        }
        return true
    }

    /// Each comma-separated element, without spaces or tabs at either end.
    private static func forEachElement(of value: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Void) {
        var start = 0
        for index in 0...value.count where index == value.count || value[index] == UInt8(ascii: ",") {
            body(trimmed(UnsafeRawBufferPointer(rebasing: value[start..<index])))
            start = index + 1
        }
    }

    static func trimmed(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        var start = 0
        var end = bytes.count
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
        while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        return UnsafeRawBufferPointer(rebasing: bytes[start..<end])
    }

    /// A decimal number that is not negative, read as `Int64(_:)` reads
    /// one (an optional sign; `-0` is 0); nil otherwise or past `Int64`.
    private static func decimal(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        var digits = bytes[...]
        var negative = false
        if let sign = digits.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            negative = sign == UInt8(ascii: "-")
            digits = digits.dropFirst()
        }
        guard !digits.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in digits {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times.addingReportingOverflow(Int64(byte - 0x30))
            guard !overflow, !carry else { return nil }
            value = sum
        }
        return negative && value != 0 ? nil : value
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
            return .failure(
                started
                    ? "the connection closed in the middle of the response headers"
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
        let facts = head.facts
        let contentLength = facts.contentLength
        let chunked = facts.chunked
        let lengthConflict = facts.lengthConflict
        if facts.close || facts.notChunked { keepAlive = false }
        let sawKeepAlive = facts.keepAlive
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
            statusLine.starts(with: "HTTP/1.".utf8), statusLine[8] == 0x20
        else { return nil }
        let minor = statusLine[7]
        guard minor == UInt8(ascii: "0") || minor == UInt8(ascii: "1") else { return nil }
        var status = 0
        for index in 9..<12 {
            let byte = statusLine[index]
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            status = status * 10 + Int(byte - 0x30)
        }
        guard statusLine.count == 12 || statusLine[12] == 0x20 else { return nil }
        let reason = statusLine.count > 13 ? String(decoding: statusLine[13...], as: UTF8.self) : ""
        // Names and values stay where they are: the head is kept as one
        // buffer with their places, and strings are made only if read.
        var spans: [HeaderList.Span] = []
        spans.reserveCapacity(12)
        /// An obsolete folded line continues the value of header `index`.
        var folds: [(index: Int, text: Range<Int32>)] = []
        var facts = HeaderFacts()
        guard let base = bytes.baseAddress else { return nil }
        func place(_ part: UnsafeRawBufferPointer) -> Range<Int32> {
            let start = Int32(base.distance(to: part.baseAddress ?? base))
            return start..<(start + Int32(part.count))
        }
        while let line = nextLine(), !line.isEmpty {
            if line[0] == 0x20 || line[0] == 0x09 {
                guard !spans.isEmpty else { return nil }
                folds.append((spans.count - 1, place(HeaderFacts.trimmed(line))))
                continue
            }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > 0 else { return nil }
            let name = UnsafeRawBufferPointer(rebasing: line[0..<colon])
            guard name.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
            let value = HeaderFacts.trimmed(UnsafeRawBufferPointer(rebasing: line[(colon + 1)...]))
            // A bare CR or a NUL in a value (RFC 9112 §2.2) could reach a
            // later request's headers (a cookie): refused.
            guard !value.contains(where: { $0 == 0x0D || $0 == 0x00 }) else { return nil }
            facts.add(name: name, value: value, at: spans.count)
            spans.append(HeaderList.Span(name: place(name), value: place(value)))
        }
        let version = minor == UInt8(ascii: "1") ? "1.1" : "1.0"
        let kept = HeaderList(bytes: Array(bytes), spans: spans)
        guard !folds.isEmpty else {
            var head = ResponseHead(status: status, version: version, headers: kept, facts: facts)
            head.reason = reason
            return head
        }
        // Folded values, joined with a space, as text (and noted again).
        var headers = Array(kept)
        for fold in folds {
            let text = UnsafeRawBufferPointer(rebasing: bytes[Int(fold.text.lowerBound)..<Int(fold.text.upperBound)])
            headers[fold.index].value += " " + String(decoding: text, as: UTF8.self)
        }
        var head = ResponseHead(status: status, version: version, headers: headers)
        head.reason = reason
        return head
    }

    /// The index of the first LF in `bytes` at or after `start`.
    private static func newline(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard start < bytes.count, let base = bytes.baseAddress,
            let found = memchr(base + start, 0x0A, bytes.count - start)
        else { return nil }
        return base.distance(to: UnsafeRawPointer(found))
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
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start = bytes.index(after: start) }
        while start < end {
            let before = bytes.index(before: end)
            guard bytes[before] == 0x20 || bytes[before] == 0x09 else { break }
            end = before
        }
        return text[start..<end]
    }
}
