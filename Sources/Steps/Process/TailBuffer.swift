import PromiseEngine
import WorkflowModel

/// The last `limit` bytes of a stream, however long the stream is: a ring
/// that grows as bytes come until it holds `limit`, then overwrites its
/// oldest bytes. Memory never exceeds `limit` (plus the array's slack).
struct TailBuffer {
    let limit: Int
    private var storage: [UInt8] = []
    /// Where the oldest byte is, once the ring is full.
    private var start = 0
    /// Every byte appended, kept or not.
    private(set) var totalBytes = 0

    init(limit: Int) {
        self.limit = max(0, limit)
    }

    /// Whether bytes were dropped from the front.
    var truncated: Bool { totalBytes > storage.count }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        totalBytes += bytes.count
        guard limit > 0, !bytes.isEmpty else { return }
        var chunk = bytes
        // Only the last `limit` bytes of a large chunk can survive.
        if chunk.count > limit {
            chunk = UnsafeRawBufferPointer(rebasing: chunk[(chunk.count - limit)...])
        }
        let room = limit - storage.count
        if room > 0 {
            let direct = min(room, chunk.count)
            storage.append(contentsOf: chunk[..<direct])
            chunk = UnsafeRawBufferPointer(rebasing: chunk[direct...])
            if chunk.isEmpty { return }
        }
        // Full: overwrite from `start`, wrapping around.
        storage.withUnsafeMutableBytes { ring in
            var offset = 0
            while offset < chunk.count {
                let count = min(chunk.count - offset, limit - start)
                ring.baseAddress!.advanced(by: start)
                    .copyMemory(from: chunk.baseAddress!.advanced(by: offset), byteCount: count)
                offset += count
                start = (start + count) % limit
            }
        }
    }

    /// The kept bytes, oldest first.
    var bytes: [UInt8] {
        if start == 0 { return storage }
        return Array(storage[start...]) + storage[..<start]
    }

    /// The kept text. When the head was dropped, a cut UTF-8 sequence at the
    /// start is skipped rather than shown as a replacement character.
    var capturedText: CapturedText {
        var kept = bytes[...]
        if truncated {
            while let first = kept.first, first & 0b1100_0000 == 0b1000_0000 { kept = kept.dropFirst() }
        }
        return CapturedText(text: String(decoding: kept, as: UTF8.self), truncated: truncated, totalBytes: totalBytes)
    }
}
