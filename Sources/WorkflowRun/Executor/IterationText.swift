/// The texts a load test makes for every request, each in one write: an
/// iteration's `[i]` suffix and its steps' ids (`get[17]`). Made with
/// `+=`, they took four appends and a number's `description`, about 2,500
/// instructions a request; written at once, a short one is a small string
/// with no allocation.
enum IterationText {
    /// `base` followed by `[index]`.
    static func suffix(_ base: String, index: Int) -> String {
        guard index >= 0 else { return base + "[" + String(index) + "]" }
        var digits = 1
        var rest = index / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        var base = base
        return base.withUTF8 { head in
            String(unsafeUninitializedCapacity: head.count + digits + 2) { out in
                var at = 0
                for byte in head {
                    out[at] = byte
                    at += 1
                }
                out[at] = UInt8(ascii: "[")
                var value = index
                var position = at + digits
                while position > at {
                    out[position] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                    position -= 1
                }
                at += digits + 1
                out[at] = UInt8(ascii: "]")
                return at + 1
            }
        }
    }

    /// `first` followed by `second`.
    static func joined(_ first: String, _ second: String) -> String {
        if second.isEmpty { return first }
        var first = first
        var second = second
        return first.withUTF8 { head in
            second.withUTF8 { tail in
                String(unsafeUninitializedCapacity: head.count + tail.count) { out in
                    var at = 0
                    for byte in head {
                        out[at] = byte
                        at += 1
                    }
                    for byte in tail {
                        out[at] = byte
                        at += 1
                    }
                    return at
                }
            }
        }
    }
}
