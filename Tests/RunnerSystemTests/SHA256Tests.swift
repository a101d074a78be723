import RunnerSystem
import Testing

/// SHA-256 against the NIST vectors (FIPS 180-4 examples and the
/// "one million a" long message), for both implementations, fed whole and
/// in uneven pieces.
@Suite("SHA-256")
struct SHA256Tests {
    static let vectors: [(String, String)] = [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
        ),
    ]

    @Test("the NIST short messages", arguments: [false, true])
    func shortMessages(portable: Bool) {
        for (message, digest) in Self.vectors {
            var hash = SHA256(portable: portable)
            hash.update(message)
            #expect(hash.hex() == digest, "\(message)")
        }
    }

    @Test("one million 'a', fed in uneven pieces", arguments: [false, true])
    func millionA(portable: Bool) {
        let bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        var hash = SHA256(portable: portable)
        bytes.withUnsafeBytes { all in
            var start = 0
            var piece = 1
            while start < all.count {
                let end = min(all.count, start + piece)
                hash.update(UnsafeRawBufferPointer(rebasing: all[start..<end]))
                start = end
                piece = piece * 3 % 997 + 1
            }
        }
        #expect(hash.hex() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("every length around the block's padding edge agrees between the two")
    func paddingEdges() {
        for length in 0..<200 {
            let text = String(repeating: "x", count: length)
            var library = SHA256()
            var portable = SHA256(portable: true)
            library.update(text)
            portable.update(text)
            #expect(library.hex() == portable.hex(), "length \(length)")
        }
    }

    @Test("this machine loads libcrypto's SHA-256 (the platform has it)")
    func libcryptoLoads() {
        #expect(SHA256.usesLibcrypto)
    }
}
