/// Where the first byte that is not UTF-8 is (the start of the first
/// ill-formed sequence), or nil when all of `bytes` is UTF-8.
package func firstInvalidUTF8(_ bytes: [UInt8]) -> Int? {
    var offset = 0
    // ASCII, the usual text, without the decoder.
    while offset < bytes.count, bytes[offset] < 0x80 { offset += 1 }
    guard offset < bytes.count else { return nil }
    var iterator = bytes[offset...].makeIterator()
    var decoder = UTF8()
    while true {
        switch decoder.decode(&iterator) {
        case .scalarValue(let scalar): offset += UTF8.width(scalar)
        case .emptyInput: return nil
        case .error: return offset
        }
    }
}
