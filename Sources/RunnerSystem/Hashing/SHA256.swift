import CSystemShims
import Glibc

/// SHA-256 (FIPS 180-4): the shared cache's keys and content addresses.
/// libcrypto's when the platform has it (loaded at run time; it uses the
/// CPU's SHA instructions), else the portable implementation of
/// CSystemShims. Both pass the NIST vectors (SHA256Tests).
package struct SHA256 {
    private var context = csh_sha256_ctx()

    /// A new hash; `portable` forces the portable implementation.
    package init(portable: Bool = false) {
        csh_sha256_init(&context, portable ? 1 : 0)
    }

    /// Whether libcrypto's implementation is in use.
    package static var usesLibcrypto: Bool { csh_sha256_uses_libcrypto() != 0 }

    /// Hashes more bytes.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        csh_sha256_update(&context, base, bytes.count)
    }

    /// Hashes a text's UTF-8.
    package mutating func update(_ text: String) {
        var text = text
        text.withUTF8 { update(UnsafeRawBufferPointer($0)) }
    }

    /// The digest in lower-case hex (64 digits).
    package mutating func hex() -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        csh_sha256_final(&context, &digest)
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(64)
        for byte in digest {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The digest of a text.
    package static func hex(of text: String) -> String {
        var hash = SHA256()
        hash.update(text)
        return hash.hex()
    }

    /// The digest of a file's contents; nil when it cannot be read.
    package static func hex(ofFile path: String) -> String? {
        var hash = SHA256()
        guard FileSystem.readChunks(path, { hash.update($0) }) else { return nil }
        return hash.hex()
    }
}
