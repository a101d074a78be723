import JSON
import WorkflowModel

/// Hurl's predicates (`isUuid`, `isIsoDate`, `isIpv4` ...) on a JSON value.
enum ValuePredicates {
    /// Whether `value` satisfies `predicate`; the text ones hold only for strings.
    static func holds(_ predicate: ValuePredicate, for value: JSONDocument) -> Bool {
        switch (predicate, value) {
        case (.isNumber, .number), (.isString, .string), (.isBoolean, .bool), (.isList, .array), (.isObject, .object): return true
        case (.isEmpty, .string(let text)): return text.isEmpty
        case (.isEmpty, .array(let items)): return items.isEmpty
        case (.isEmpty, .object(let object)): return object.members.isEmpty
        case (.isUuid, .string(let text)): return isUuid(text)
        case (.isIsoDate, .string(let text)): return isIsoDate(text)
        case (.isIpv4, .string(let text)): return isIpv4(text)
        case (.isIpv6, .string(let text)): return isIpv6(text)
        default: return false
        }
    }

    private static func isHex(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    /// 8-4-4-4-12 hex digits, either case.
    static func isUuid(_ text: String) -> Bool {
        let groups = text.utf8.split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
        return groups.map(\.count) == [8, 4, 4, 4, 12] && groups.allSatisfy { $0.allSatisfy(isHex) }
    }

    /// RFC 3339: `2026-01-31T12:00:00Z`, a fraction and an offset allowed.
    static func isIsoDate(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        // YYYY-MM-DDTHH:MM:SS: digits where the shape has `d`.
        let shape = Array("dddd-dd-ddTdd:dd:dd".utf8)
        guard bytes.count >= shape.count else { return false }
        for (byte, wanted) in zip(bytes, shape) {
            if wanted == UInt8(ascii: "d") ? !isDigit(byte) : (byte != wanted && !(wanted == UInt8(ascii: "T") && byte == UInt8(ascii: "t"))) {
                return false
            }
        }
        var rest = bytes[shape.count...]
        if rest.first == UInt8(ascii: ".") {
            rest = rest.dropFirst()
            let digits = rest.prefix(while: isDigit)
            guard !digits.isEmpty else { return false }
            rest = rest.dropFirst(digits.count)
        }
        if rest.elementsEqual([UInt8(ascii: "Z")]) || rest.elementsEqual([UInt8(ascii: "z")]) { return true }
        let offset = Array(rest)
        return offset.count == 6 && (offset[0] == UInt8(ascii: "+") || offset[0] == UInt8(ascii: "-"))
            && isDigit(offset[1]) && isDigit(offset[2]) && offset[3] == UInt8(ascii: ":") && isDigit(offset[4]) && isDigit(offset[5])
    }

    /// Four decimal numbers 0-255, no leading zeros.
    static func isIpv4(_ text: String) -> Bool {
        let parts = text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy { part in
                !part.isEmpty && part.count <= 3 && part.allSatisfy(isDigit) && (part.count == 1 || part.first != UInt8(ascii: "0"))
                    && Int(String(decoding: part, as: UTF8.self))! <= 255
            }
    }

    /// Eight groups of 1-4 hex digits, `::` once for a run of zero groups,
    /// an IPv4 address as the last two groups.
    static func isIpv6(_ text: String) -> Bool {
        let halves = text.split(separator: "::", omittingEmptySubsequences: false)
        guard halves.count <= 2 else { return false }
        var groups = 0
        for (index, half) in halves.enumerated() where !half.isEmpty {
            let parts = half.split(separator: ":", omittingEmptySubsequences: false)
            for (position, part) in parts.enumerated() {
                if index == halves.count - 1, position == parts.count - 1, part.contains(".") {
                    guard isIpv4(String(part)) else { return false }
                    groups += 2
                } else {
                    guard (1...4).contains(part.utf8.count), part.utf8.allSatisfy(isHex) else { return false }
                    groups += 1
                }
            }
        }
        return halves.count == 2 ? groups < 8 : groups == 8
    }
}
