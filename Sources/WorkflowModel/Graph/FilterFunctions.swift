import JSON
import PromiseEngine

// What the filters of `{{x | filter}}` do (spec §7), on plain strings.

extension Filter {
    /// Applies the filter to a value.
    package func apply(to value: String) -> String {
        switch self {
        case .trim: return Filter.trimmed(value)
        case .shell: return Filter.shellQuoted(value)
        case .json: return Filter.jsonQuoted(value)
        case .url: return Filter.percentEncoded(value)
        case .base: return Filter.pathParts(value).base
        case .stem: return Filter.pathParts(value).stem
        case .ext: return Filter.pathParts(value).ext
        case .dir: return Filter.pathParts(value).dir
        }
    }

    /// A path's folder, last name, and that name's stem and extension, as
    /// `dirname`, `basename` and Python's `PurePath` give them: a trailing
    /// `/` is dropped, a leading dot does not start an extension
    /// (`.bashrc` has none), the last dot does (`a.tar.gz` → `a.tar`, `.gz`).
    package static func pathParts(_ path: String) -> (dir: String, base: String, stem: String, ext: String) {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        let dir: String, base: Substring
        if let slash = trimmed.lastIndex(of: "/") {
            base = trimmed[trimmed.index(after: slash)...]
            let folder = trimmed[..<slash]
            dir = folder.isEmpty ? "/" : String(folder)
        } else {
            base = trimmed
            dir = "."
        }
        guard let dot = base.lastIndex(of: "."), dot != base.startIndex, base.index(after: dot) != base.endIndex else {
            return (dir, String(base), String(base), "")
        }
        return (dir, String(base), String(base[..<dot]), String(base[dot...]))
    }

    /// Without leading and trailing spaces, tabs and line breaks.
    package static func trimmed(_ value: String) -> String {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == 0x0B || $0 == 0x0C }
        let bytes = Array(value.utf8)
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }

    /// One word for a POSIX shell: `'it'\''s'`. Works on bytes, as the
    /// shell does: an apostrophe followed by a combining mark is one
    /// Character to Swift but still ends a quote for the shell.
    package static func shellQuoted(_ value: String) -> String {
        var quoted: [UInt8] = [UInt8(ascii: "'")]
        quoted.reserveCapacity(value.utf8.count + 2)
        for byte in value.utf8 {
            if byte == UInt8(ascii: "'") {
                quoted += Array("'\\''".utf8)
            } else {
                quoted.append(byte)
            }
        }
        quoted.append(UInt8(ascii: "'"))
        return String(decoding: quoted, as: UTF8.self)
    }

    /// A JSON string literal, quotes included (the `json` filter; JSON's
    /// one writer of strings).
    package static func jsonQuoted(_ value: String) -> String {
        JSONText.quoted(value)
    }

    /// `%XX` escapes decoded (user info in a URL, a file URI's path); a
    /// `%` not followed by two hex digits stays as it is.
    package static func percentDecoded(_ text: String) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
               let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Percent-encoded UTF-8; only `A-Z a-z 0-9 - . _ ~` stay as they are.
    package static func percentEncoded(_ value: String) -> String {
        let hexDigits = Array("0123456789ABCDEF".utf8)
        var encoded: [UInt8] = []
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                encoded.append(byte)
            default:
                encoded += [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: encoded, as: UTF8.self)
    }
}
