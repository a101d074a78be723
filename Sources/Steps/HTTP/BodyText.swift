import Glibc
import WorkflowModel

/// A response body as text, decoded by the charset its `Content-Type`
/// names: UTF-8 when none is named, Latin-1, Windows-1252,
/// US-ASCII and UTF-16 here, any other charset glibc's iconv knows. Bytes
/// that do not decode become U+FFFD.
/// See docs/steps.md, 'HTTP'.
enum BodyText {
    static func decode(_ bytes: [UInt8], contentType: String?) -> String {
        guard let charset = charset(of: contentType) else { return String(decoding: bytes, as: UTF8.self) }
        switch charset {
        case "utf-8", "utf8":
            return String(decoding: bytes, as: UTF8.self)
        case "iso-8859-1", "latin1", "l1", "iso_8859-1", "iso8859-1", "us-ascii", "ascii":
            return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        case "windows-1252", "cp1252":
            return String(String.UnicodeScalarView(bytes.map { windows1252($0) }))
        case "utf-16", "utf-16le", "utf-16be":
            return utf16(bytes, charset: charset)
        default:
            return iconv(bytes, from: charset) ?? String(decoding: bytes, as: UTF8.self)
        }
    }

    /// The `charset` parameter, lower-case, without quotes.
    static func charset(of contentType: String?) -> String? {
        guard let contentType, ASCIIByte.occurs(UInt8(ascii: ";"), in: contentType) else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingSpaces.lowercased() == "charset" else { continue }
            var value = pair[1].trimmingSpaces
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = value.dropFirst().dropLast() }
            return value.isEmpty ? nil : value.lowercased()
        }
        return nil
    }

    private static func windows1252(_ byte: UInt8) -> Unicode.Scalar {
        let table: [UInt32] = [
            0x20AC, 0xFFFD, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0xFFFD, 0x017D, 0xFFFD,
            0xFFFD, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0xFFFD, 0x017E, 0x0178,
        ]
        guard byte >= 0x80, byte < 0xA0 else { return Unicode.Scalar(byte) }
        return Unicode.Scalar(table[Int(byte - 0x80)]) ?? "\u{FFFD}"
    }

    private static func utf16(_ bytes: [UInt8], charset: String) -> String {
        var bigEndian = charset == "utf-16be"
        var start = 0
        if charset == "utf-16", bytes.count >= 2 {
            if bytes[0] == 0xFE, bytes[1] == 0xFF {
                bigEndian = true
                start = 2
            }
            if bytes[0] == 0xFF, bytes[1] == 0xFE { start = 2 }
        }
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        var index = start
        while index + 1 < bytes.count {
            let pair =
                bigEndian
                ? (UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1]))
                : (UInt16(bytes[index + 1]) << 8 | UInt16(bytes[index]))
            units.append(pair)
            index += 2
        }
        return String(decoding: units, as: UTF16.self)
    }

    /// Through glibc's iconv; nil when it does not know the charset.
    private static func iconv(_ bytes: [UInt8], from charset: String) -> String? {
        let converter = iconv_open("UTF-8", charset)
        guard let converter, converter != iconv_t(bitPattern: -1) else { return nil }
        defer { iconv_close(converter) }
        var input = bytes
        var output = [UInt8](repeating: 0, count: bytes.count * 4 + 16)
        var result: [UInt8] = []
        input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                var inPointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(inBuffer.baseAddress)?
                    .assumingMemoryBound(to: CChar.self)
                var inLeft = inBuffer.count
                while inLeft > 0 {
                    var outPointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(outBuffer.baseAddress)?
                        .assumingMemoryBound(to: CChar.self)
                    var outLeft = outBuffer.count
                    let converted = Glibc.iconv(converter, &inPointer, &inLeft, &outPointer, &outLeft)
                    result += outBuffer[0..<(outBuffer.count - outLeft)]
                    if converted == -1 {
                        if errno == E2BIG { continue }
                        // An invalid or cut-off sequence: one replacement
                        // character, then on past the byte.
                        result += [0xEF, 0xBF, 0xBD]
                        inPointer = inPointer.map { $0 + 1 }
                        inLeft -= 1
                    }
                }
            }
        }
        return String(decoding: result, as: UTF8.self)
    }
}
