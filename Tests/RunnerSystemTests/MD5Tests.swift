import Testing

@testable import RunnerSystem

@Suite("MD5")
struct MD5Tests {
    @Test("RFC 1321's test suite, and a message across two blocks")
    func vectors() {
        #expect(MD5.hex(of: "") == "d41d8cd98f00b204e9800998ecf8427e")
        #expect(MD5.hex(of: "a") == "0cc175b9c0f1b6a831c399e269772661")
        #expect(MD5.hex(of: "abc") == "900150983cd24fb0d6963f7d28e17f72")
        #expect(MD5.hex(of: "message digest") == "f96b697d7cb7938d525a2f31aaf161d0")
        #expect(MD5.hex(of: "abcdefghijklmnopqrstuvwxyz") == "c3fcd3d76192e4007dfb496cca67e13b")
        #expect(MD5.hex(of: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") == "d174ab98d277d9f5a5611c2c9f419d9f")
        #expect(MD5.hex(of: String(repeating: "1234567890", count: 8)) == "57edf4a22be3c955ac49da2e2107b67a")
    }
}
