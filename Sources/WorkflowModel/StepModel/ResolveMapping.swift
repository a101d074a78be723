import PromiseEngine

/// `resolve "HOST:PORT:ADDRESS"` (curl's `--resolve`): requests
/// to HOST on PORT connect to ADDRESS (an IPv4 or IPv6 address, brackets
/// allowed), with no lookup.
/// See docs/steps.md, 'For Hurl users'.
package struct ResolveMapping: Sendable, Hashable {
    package var host: String
    package var port: Int
    package var address: String

    /// The mapping a text writes, or nil (`problem` says why).
    package init?(_ text: String) {
        guard ResolveMapping.problem(in: text) == nil else { return nil }
        let parts = text.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        host = String(parts[0]).lowercased()
        port = Int(parts[1])!
        var address = Substring(parts[2])
        if address.hasPrefix("["), address.hasSuffix("]") { address = address.dropFirst().dropLast() }
        self.address = String(address)
    }

    /// What is wrong with a mapping, in words; nil when it is fine.
    package static func problem(in text: String) -> String? {
        let parts = text.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return "it needs three parts, HOST:PORT:ADDRESS" }
        guard !parts[0].isEmpty else { return "the host is empty" }
        guard let port = Int(parts[1]), (1...65535).contains(port) else { return "the port '\(parts[1])' is not a number from 1 to 65535" }
        var address = parts[2]
        if address.hasPrefix("["), address.hasSuffix("]") { address = address.dropFirst().dropLast() }
        guard isIPv4(address) || isIPv6(address) else { return "'\(parts[2])' is not an IP address" }
        return nil
    }

    static func isIPv4(_ text: Substring) -> Bool {
        let pieces = text.split(separator: ".", omittingEmptySubsequences: false)
        return pieces.count == 4
            && pieces.allSatisfy { piece in
                !piece.isEmpty && piece.count <= 3 && piece.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } && Int(piece)! <= 255
            }
    }

    static func isIPv6(_ text: Substring) -> Bool {
        guard text.contains(":"), text.count >= 2 else { return false }
        return text.utf8.allSatisfy {
            ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x66) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".")
        }
    }
}
