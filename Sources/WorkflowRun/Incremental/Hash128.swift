/// A 128-bit non-cryptographic hash, for fingerprints: two 64-bit lanes
/// over 8-byte words (multiply, rotate, cross-feed), a final avalanche.
/// Not for security: a fingerprint decides whether to run a step again.
struct Hash128 {
    private var a: UInt64 = 0x243F_6A88_85A3_08D3
    private var b: UInt64 = 0x1319_8A2E_0370_7344
    private var length: UInt64 = 0

    mutating func add(_ buffer: UnsafeRawBufferPointer) {
        var offset = 0
        let count = buffer.count
        while offset + 8 <= count {
            mix(buffer.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
        }
        if offset < count {
            var tail: UInt64 = 0
            for index in offset..<count { tail |= UInt64(buffer[index]) << (8 * UInt64(index - offset)) }
            mix(tail ^ 0x80)
        }
        length &+= UInt64(count)
    }

    mutating func add(_ text: String) {
        var text = text
        text.withUTF8 { add(UnsafeRawBufferPointer($0)) }
        // A separator: "ab"+"c" differs from "a"+"bc".
        mix(0xFF00_FF00_FF00_FF00 ^ UInt64(text.utf8.count))
    }

    private mutating func mix(_ word: UInt64) {
        a = (a ^ word) &* 0x9E37_79B9_7F4A_7C15
        a = (a << 31) | (a >> 33)
        b = (b ^ word) &* 0xC2B2_AE3D_27D4_EB4F
        b = ((b << 29) | (b >> 35)) &+ a
    }

    private static func avalanche(_ value: UInt64) -> UInt64 {
        var x = value
        x ^= x >> 30
        x = x &* 0xBF58_476D_1CE4_E5B9
        x ^= x >> 27
        x = x &* 0x94D0_49BB_1331_11EB
        return x ^ (x >> 31)
    }

    /// 32 hex digits.
    var hex: String {
        let high = Self.avalanche(a ^ length)
        let low = Self.avalanche(b ^ (length &* 0x9E37_79B9_7F4A_7C15) ^ a)
        // Written byte by byte: one small string, no intermediate ones.
        return String(unsafeUninitializedCapacity: 32) { out in
            let digits: StaticString = "0123456789abcdef"
            for (index, value) in [high, low].enumerated() {
                for nibble in 0..<16 {
                    out[index * 16 + nibble] = digits.utf8Start[Int((value >> UInt64(60 - 4 * nibble)) & 15)]
                }
            }
            return 32
        }
    }
}
