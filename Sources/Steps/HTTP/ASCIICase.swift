/// Header names compared without allocating: ASCII letters in any case.
extension StringProtocol {
    /// Whether the text equals `lowercase` (which must be lower-case ASCII)
    /// when ASCII letters are compared without case.
    @inline(__always)
    func equalsLowercase(_ lowercase: String) -> Bool {
        let a = utf8
        let b = lowercase.utf8
        guard a.count == b.count else { return false }
        var bi = b.makeIterator()
        for byte in a {
            let other = bi.next()!
            if byte == other { continue }
            guard byte >= 0x41, byte <= 0x5A, byte | 0x20 == other else { return false }
        }
        return true
    }
}
