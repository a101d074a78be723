import Glibc

/// Cuts a byte stream into lines for the output sink: each line without
/// its `\n` (or `\r\n`), decoded as UTF-8 (invalid bytes become U+FFFD).
/// A line longer than `maximumLineLength` is passed on in pieces of that
/// size, so a stream without newlines cannot grow memory.
struct LineSplitter {
    static let defaultMaximumLineLength = 64 * 1024

    let maximumLineLength: Int
    private var pending: [UInt8] = []

    init(maximumLineLength: Int = LineSplitter.defaultMaximumLineLength) {
        self.maximumLineLength = max(1, maximumLineLength)
    }

    /// Passes every line completed by `bytes` to `emit`.
    mutating func append(_ bytes: UnsafeRawBufferPointer, _ emit: (String) -> Void) {
        guard let base = bytes.baseAddress else { return }
        var lineStart = 0
        let count = bytes.count
        while lineStart < count, let found = memchr(base + lineStart, 0x0A, count - lineStart) {
            let index = base.distance(to: UnsafeRawPointer(found))
            emitLine(UnsafeRawBufferPointer(rebasing: bytes[lineStart..<index]), emit)
            lineStart = index + 1
        }
        if lineStart < count {
            pending.append(contentsOf: bytes[lineStart..<count])
            while pending.count >= maximumLineLength {
                emit(String(decoding: pending[..<maximumLineLength], as: UTF8.self))
                pending.removeFirst(maximumLineLength)
            }
        }
    }

    /// Passes on the last line when the stream ended without a newline.
    mutating func finish(_ emit: (String) -> Void) {
        guard !pending.isEmpty else { return }
        var line = pending[...]
        if line.last == 0x0D { line = line.dropLast() }
        emit(String(decoding: line, as: UTF8.self))
        pending = []
    }

    private mutating func emitLine(_ tail: UnsafeRawBufferPointer, _ emit: (String) -> Void) {
        if pending.isEmpty {
            var line = tail[...]
            if line.last == 0x0D { line = line.dropLast() }
            emit(String(decoding: line, as: UTF8.self))
        } else {
            pending.append(contentsOf: tail)
            if pending.last == 0x0D { pending.removeLast() }
            emit(String(decoding: pending, as: UTF8.self))
            pending.removeAll(keepingCapacity: true)
        }
    }
}
