import Glibc
import JSON
import Synchronization

/// JSON-RPC over a pair of descriptors (the language server's stdin and
/// stdout): a thread reads frames and hands each message to `receive`, in
/// order; `send` writes whole frames under a lock, so that messages from
/// several threads never interleave. Nothing but frames is ever written.
package final class Connection: Sendable {
    private let output: Int32
    /// True once `close` was called: nothing more is written.
    private let writeLock = Mutex<Bool>(false)

    package init(output: Int32) {
        self.output = output
    }

    /// Writes one message (nothing after `close`).
    package func send(_ message: OutgoingMessage) {
        let bytes = MessageFraming.frame(message.body)
        writeLock.withLock { closed in
            guard !closed else { return }
            bytes.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let written = write(output, raw.baseAddress! + offset, raw.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        return
                    }
                    offset += written
                }
            }
        }
    }

    /// Writes nothing more, from any thread, once this returns (a write
    /// under way finishes first): the descriptor is then its owner's to
    /// close. A late message (a debounced diagnostic) written to a closed
    /// descriptor's number would land in whatever file took it next.
    package func close() {
        writeLock.withLock { $0 = true }
    }

    /// Reads `input` until its end, calling `receive` for each message and
    /// `problem` for each body that is not one (with the id when known).
    /// A body that is not valid UTF-8 is read with each bad sequence as
    /// U+FFFD, and `receive` is told (`repaired`). Returns at the end of
    /// the input, or when `receive` returns false.
    package func readLoop(
        input: Int32, receive: (Message, _ repaired: Bool) -> Bool,
        problem: (RequestID?, ResponseError) -> Void
    ) {
        var reader = FrameReader()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { return }
            for event in reader.feed(chunk[0..<count]) {
                switch event {
                case .body(var body):
                    let repaired = !Self.isValidUTF8(body)
                    if repaired { body = Array(String(decoding: body, as: UTF8.self).utf8) }
                    switch Message.parse(body) {
                    case .success(let message): if !receive(message, repaired) { return }
                    case .failure(let failure): problem(failure.id, failure.error)
                    }
                case .malformedHeader(let why):
                    problem(nil, ResponseError(code: ResponseError.parseError, message: "malformed header: \(why)"))
                }
            }
        }
    }

    /// Whether the bytes are valid UTF-8.
    package static func isValidUTF8(_ bytes: [UInt8]) -> Bool {
        firstInvalidUTF8(bytes) == nil
    }
}
