/// The byte classes of the workflow language's words (`[A-Za-z_]`, then
/// also digits and `-`), shared by the lexer and JSON paths.
package enum ASCIIByte {
    @inlinable
    package static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    @inlinable
    package static func isIdentifierStart(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F
    }

    @inlinable
    package static func isIdentifierContinue(_ byte: UInt8) -> Bool {
        isIdentifierStart(byte) || isDigit(byte) || byte == 0x2D
    }

    /// Whether `byte` occurs in `text`, read in place (a `String`'s UTF-8
    /// view searched element by element costs tens of instructions a byte).
    @inlinable
    package static func occurs(_ byte: UInt8, in text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { $0.contains(byte) } ?? text.utf8.contains(byte)
    }
}
