import JSON

/// The base protocol's framing (LSP 3.17, "Base Protocol"): each message
/// is a header part (`Content-Length: N`, optionally `Content-Type`, each
/// line ended by CRLF), an empty line, and N bytes of JSON.
package enum MessageFraming {
    /// A frame around `body`.
    package static func frame(_ body: [UInt8]) -> [UInt8] {
        Array("Content-Length: \(body.count)\r\n\r\n".utf8) + body
    }
}

/// What a `FrameReader` found in the bytes it was given.
package enum FrameEvent: Equatable, Sendable {
    /// A whole message body.
    case body([UInt8])
    /// A header part that is not valid (no or a bad `Content-Length`, a
    /// line without `:`); the reader skipped it and goes on with the next.
    case malformedHeader(String)
}

/// Cuts a byte stream into message bodies, however the bytes arrive (a
/// frame split across reads, several frames in one read). A wrong
/// `Content-Length` costs that message only: a header part
/// starts at its `Content-Length` (what a too short length left of the
/// body before it is dropped), and a body that holds the next frame's
/// `Content-Length` ends there (a length too long must not swallow the
/// messages after it). JSON cannot hold that header outside a string,
/// and a string cannot hold the line break before it.
/// See docs/language.md, 'Editors'.
package struct FrameReader: Sendable {
    private var buffer: [UInt8] = []
    private var start = 0
    /// The body length of the frame whose header was read.
    private var pendingLength: Int?
    /// How far the pending body was searched for the next header.
    private var searched = 0
    /// A body larger than this is refused (a garbled length must not make
    /// the server wait for gigabytes).
    package let maximumBody: Int

    package init(maximumBody: Int = 256 << 20) {
        self.maximumBody = maximumBody
    }

    /// Adds bytes; returns the events they complete, in order.
    package mutating func feed(_ bytes: some Collection<UInt8>) -> [FrameEvent] {
        buffer.append(contentsOf: bytes)
        var events: [FrameEvent] = []
        while true {
            if let length = pendingLength {
                let available = min(buffer.count, start + length)
                if let next = Self.headerName(in: buffer, from: max(start, searched), to: available) {
                    // The next frame began inside this one: the length was too long.
                    events.append(.body(Array(buffer[start..<next])))
                    start = next
                    pendingLength = nil
                    continue
                }
                searched = max(start, available - 64)
                guard buffer.count - start >= length else { break }
                events.append(.body(Array(buffer[start..<(start + length)])))
                start += length
                pendingLength = nil
                continue
            }
            if let name = Self.headerName(in: buffer, from: start, to: buffer.count), name > start {
                // What a too short length left of its body: not a header.
                start = name
            }
            guard let end = headerEnd() else {
                // No blank line yet; a header part that grew absurdly long is garbage.
                if buffer.count - start > 64 * 1024 {
                    events.append(.malformedHeader("a header of more than 64 KiB without an empty line"))
                    start = buffer.count
                }
                break
            }
            let header = String(decoding: buffer[start..<end.headerEnd], as: UTF8.self)
            start = end.bodyStart
            switch Self.contentLength(header) {
            case .success(let length) where length <= maximumBody:
                pendingLength = length
            case .success(let length):
                events.append(.malformedHeader("Content-Length \(length) is over the limit of \(maximumBody) bytes"))
            case .failure(let problem):
                events.append(.malformedHeader(problem.message))
            }
        }
        // Keep the buffer small: drop what was consumed.
        if start > 0 && (start == buffer.count || start > 1 << 16) {
            buffer.removeFirst(start)
            searched = max(0, searched - start)
            start = 0
        }
        return events
    }

    /// Where the header part ends (before `\r\n\r\n`; a bare `\n\n` is
    /// accepted too) and where the body starts.
    private func headerEnd() -> (headerEnd: Int, bodyStart: Int)? {
        var index = start
        while index < buffer.count {
            if buffer[index] == 0x0A {
                if index + 1 < buffer.count, buffer[index + 1] == 0x0A { return (index, index + 2) }
                if index + 2 < buffer.count, buffer[index + 1] == 0x0D, buffer[index + 2] == 0x0A {
                    return (index > start && buffer[index - 1] == 0x0D ? index - 1 : index, index + 3)
                }
            }
            index += 1
        }
        return nil
    }

    private static let contentLengthName = Array("content-length:".utf8)

    /// Where the first whole `Content-Length: N` line (any case, ended
    /// by CR LF, which JSON holds only as escapes or between tokens, never
    /// after this name) starts in `bytes[from..<to]`.
    private static func headerName(in bytes: [UInt8], from: Int, to: Int) -> Int? {
        let name = contentLengthName
        var index = from
        while index + name.count < to {
            if bytes[index] | 0x20 == name[0],
                zip(bytes[index..<(index + name.count)], name).allSatisfy({ $0 == $1 || ($0 | 0x20) == $1 })
            {
                var end = index + name.count
                while end < to, bytes[end] == 0x20 || bytes[end] == 0x09 { end += 1 }
                let digits = end
                while end < to, bytes[end] >= 0x30 && bytes[end] <= 0x39 { end += 1 }
                if end > digits, end + 1 < to, bytes[end] == 0x0D, bytes[end + 1] == 0x0A { return index }
            }
            index += 1
        }
        return nil
    }

    private struct HeaderProblem: Error {
        var message: String
    }

    private static func contentLength(_ header: String) -> Result<Int, HeaderProblem> {
        var length: Int?
        // "\r\n" is one Character: split on either.
        for line in header.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            if line.isEmpty { continue }
            guard let colon = line.firstIndex(of: ":") else {
                return .failure(HeaderProblem(message: "a header line without ':' (\(line.prefix(60)))"))
            }
            let name = line[..<colon].lowercased()
            // A header's value without the spaces and tabs around it (RFC 9110, OWS).
            let value = String(
                line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }.reversed()
                    .drop { $0 == " " || $0 == "\t" }.reversed())
            if name == "content-length" {
                guard let number = Int(value), number >= 0 else {
                    return .failure(HeaderProblem(message: "Content-Length is not a number (\(value.prefix(40)))"))
                }
                length = number
            }
        }
        guard let length else { return .failure(HeaderProblem(message: "a header part without Content-Length")) }
        return .success(length)
    }
}
