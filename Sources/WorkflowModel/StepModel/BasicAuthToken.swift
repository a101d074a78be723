/// The token of `Authorization: Basic TOKEN` (RFC 7617): base64 of
/// `user:password`, from `basic-auth` or from a URL's user info. Made
/// here once: the request sends it, and the run's secrets mask the token
/// made from a secret (a server may echo it back).
package enum BasicAuthToken {
    /// The token of `basic-auth USER PASSWORD`.
    package static func of(user: String, password: String) -> String {
        Base64.encode((user + ":" + password).utf8)
    }

    /// The token of a URL's user info (`user:pass`, `%XX` escapes decoded).
    package static func of(userInfo: String) -> String {
        Base64.encode(Filter.percentDecoded(userInfo).utf8)
    }

    /// The user info of an absolute URL (`scheme://USERINFO@host/...`),
    /// as written; nil when it has none.
    package static func userInfo(inURL url: String) -> String? {
        guard let schemeEnd = url.firstRange(of: "://")?.upperBound else { return nil }
        let rest = url[schemeEnd...]
        let authority = rest[..<(rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex)]
        guard let at = authority.lastIndex(of: "@") else { return nil }
        return String(authority[..<at])
    }
}

/// Base64 (RFC 4648), for `Authorization: Basic`.
package enum Base64 {
    /// `bytes` in base64, padded with `=`.
    package static func encode(_ bytes: some Collection<UInt8>) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity((input.count + 2) / 3 * 4)
        var index = 0
        while index + 2 < input.count {
            let value = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            output += [
                alphabet[Int(value >> 18 & 63)], alphabet[Int(value >> 12 & 63)],
                alphabet[Int(value >> 6 & 63)], alphabet[Int(value & 63)],
            ]
            index += 3
        }
        let rest = input.count - index
        if rest == 1 {
            let value = UInt32(input[index]) << 16
            output += [alphabet[Int(value >> 18 & 63)], alphabet[Int(value >> 12 & 63)], UInt8(ascii: "="), UInt8(ascii: "=")]
        } else if rest == 2 {
            let value = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
            output += [
                alphabet[Int(value >> 18 & 63)], alphabet[Int(value >> 12 & 63)], alphabet[Int(value >> 6 & 63)],
                UInt8(ascii: "="),
            ]
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes a base64 text holds: the standard alphabet or the URL-safe
    /// one (`-`, `_`), padding optional; nil when it is not base64.
    package static func decode(_ text: String) -> [UInt8]? {
        var values: [UInt8] = []
        var padding = 0
        for byte in text.utf8 {
            let value: UInt8
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = byte - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = byte - UInt8(ascii: "a") + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte - UInt8(ascii: "0") + 52
            case UInt8(ascii: "+"), UInt8(ascii: "-"): value = 62
            case UInt8(ascii: "/"), UInt8(ascii: "_"): value = 63
            case UInt8(ascii: "="):
                padding += 1
                continue
            default: return nil
            }
            // Nothing but padding after padding.
            guard padding == 0 else { return nil }
            values.append(value)
        }
        guard values.count % 4 != 1, padding <= 2, padding == 0 || (values.count + padding) % 4 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(values.count * 3 / 4)
        var index = 0
        while index + 3 < values.count {
            let value = UInt32(values[index]) << 18 | UInt32(values[index + 1]) << 12 | UInt32(values[index + 2]) << 6 | UInt32(values[index + 3])
            bytes += [UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
            index += 4
        }
        let rest = values.count - index
        if rest == 2 {
            let value = UInt32(values[index]) << 18 | UInt32(values[index + 1]) << 12
            bytes.append(UInt8(value >> 16 & 0xFF))
        } else if rest == 3 {
            let value = UInt32(values[index]) << 18 | UInt32(values[index + 1]) << 12 | UInt32(values[index + 2]) << 6
            bytes += [UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF)]
        }
        return bytes
    }
}
