/// The one writer of JSON's scalars (strings, integers, fixed-point
/// numbers), as bytes: `JSONValue` renders through it, and so does
/// `JSONLine`, which writes a line of a JSON-lines stream without building
/// a value first.
package enum JSONText {
    /// A JSON string literal, quotes included: control characters, quotes
    /// and backslashes escaped.
    package static func quoted(_ value: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(value.utf8.count + 2)
        appendQuoted(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `value` as a JSON string literal. Every byte JSON escapes is
    /// ASCII, so the UTF-8 of everything else is copied as it is; a string
    /// with nothing to escape is copied in one piece.
    package static func appendQuoted(_ value: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var copy = value
        copy.withUTF8 { utf8 in
            var start = 0
            for index in utf8.indices {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                appendEscape(byte, to: &bytes)
                start = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static func appendEscape(_ byte: UInt8, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        default:
            let hex: [UInt8] = Array("0123456789abcdef".utf8)
            bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
        }
    }

    /// Appends the decimal digits of `value` (a `-` first when negative).
    package static func appendInteger(_ value: Int, to bytes: inout [UInt8]) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        // UInt.max has 20 digits.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
            var end = buffer.count
            repeat {
                end -= 1
                buffer[end] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude != 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[end...]))
        }
    }

    /// Appends `value` with exactly `places` decimals, rounded half away
    /// from zero (`2.25` with one place is `2.3`): what
    /// `String(format: "%.Nf")` gives for the values reports hold. Not
    /// finite: `nan`, `inf` or `-inf` (JSON writers put `null` instead).
    package static func appendDecimal(_ value: Double, places: Int, to bytes: inout [UInt8]) {
        guard value.isFinite else {
            bytes.append(contentsOf: (value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf")).utf8)
            return
        }
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9e15 else {
            bytes.append(contentsOf: String(value).utf8)
            return
        }
        let units = Int(scaled)
        let divisor = Int(scale)
        if value < 0 && units != 0 { bytes.append(UInt8(ascii: "-")) }
        appendInteger(units / divisor, to: &bytes)
        guard places > 0 else { return }
        bytes.append(UInt8(ascii: "."))
        let fraction = units % divisor
        var width = 1
        var rest = fraction / 10
        while rest > 0 {
            width += 1
            rest /= 10
        }
        for _ in 0..<(places - width) { bytes.append(UInt8(ascii: "0")) }
        appendInteger(fraction, to: &bytes)
    }
}
