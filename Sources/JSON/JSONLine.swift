/// One JSON object written straight into bytes, member by member, keys in
/// the order given: a line of a JSON-lines stream (`--events`) made without
/// building a `JSONValue` first (a million events a minute are written
/// so). Its scalars are `JSONText`'s, as `JSONValue`'s are.
///
/// ```swift
/// var line = JSONLine()
/// line.add("event", "step-end")
/// line.add("exit", 0)
/// let bytes = line.finished()   // {"event":"step-end","exit":0}\n
/// ```
package struct JSONLine {
    private var bytes: [UInt8]
    private var empty = true

    /// An empty object, with room for `capacity` bytes.
    package init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
        bytes.append(UInt8(ascii: "{"))
    }

    /// The key, quoted, and its colon (after a comma for a later member).
    /// Keys are written in the source, so they are copied as they are: a
    /// key holds nothing JSON escapes.
    private mutating func key(_ name: StaticString) {
        if !empty { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        empty = false
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    /// A string member; `nil` writes `null`.
    package mutating func add(_ name: StaticString, _ value: String?) {
        key(name)
        if let value { JSONText.appendQuoted(value, to: &bytes) } else { bytes.append(contentsOf: "null".utf8) }
    }

    /// An integer member.
    package mutating func add(_ name: StaticString, _ value: Int) {
        key(name)
        JSONText.appendInteger(value, to: &bytes)
    }

    /// A number with `places` decimals; `nil` or not finite writes `null`.
    package mutating func add(_ name: StaticString, _ value: Double?, places: Int) {
        key(name)
        if let value, value.isFinite {
            JSONText.appendDecimal(value, places: places, to: &bytes)
        } else {
            bytes.append(contentsOf: "null".utf8)
        }
    }

    /// A member whose value is already JSON text (a string made once and
    /// written in many lines, as the events' time within one millisecond).
    package mutating func add(_ name: StaticString, json: [UInt8]) {
        key(name)
        bytes.append(contentsOf: json)
    }

    /// Any value, compact.
    package mutating func add(_ name: StaticString, _ value: JSONValue) {
        key(name)
        value.appendCompact(to: &bytes)
    }

    /// The object closed, and a line break after it.
    package consuming func finished() -> [UInt8] {
        bytes.append(UInt8(ascii: "}"))
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }
}
