package import JSON
import PromiseEngine

// What the filters of `{{x | filter}}` do, on plain strings.
// See docs/language.md, 'Interpolation'.

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
        default: return value  // The filters on values apply there (FilterCall.apply).
        }
    }

    /// A path's folder, last name, and that name's stem and extension, as
    /// `dirname`, `basename` and Python's `PurePath` give them: a trailing
    /// `/` is dropped, a leading dot does not start an extension
    /// (`.bashrc` has none), the last dot does (`a.tar.gz` → `a.tar`, `.gz`).
    package static func pathParts(_ path: String) -> (dir: String, base: String, stem: String, ext: String) {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        let dir: String
        let base: Substring
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
                let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
            {
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

// MARK: - Filters on values
// See docs/steps.md, 'For Hurl users'.

extension Filter {
    /// What the filter takes after its name.
    package var parameters: [FilterParameter] {
        switch self {
        case .nth: return [.integer]
        case .split: return [.text]
        case .replace: return [.text, .text]
        case .jsonpath: return [.jsonPath]
        default: return []
        }
    }

    /// How the filter is written, with its parameters: `replace "A" "B"`.
    package var usage: String {
        let words = parameters.enumerated().map { index, parameter -> String in
            switch parameter {
            case .integer: return "N"
            case .text: return parameters.count > 1 ? ["\"A\"", "\"B\""][index] : "\"SEP\""
            case .jsonPath: return "\"PATH\""
            }
        }
        return ([rawValue] + words).joined(separator: " ")
    }

    /// The filters on text, which read any value as its text (a list
    /// or an object as its JSON).
    package var readsAnyText: Bool {
        switch self {
        case .trim, .shell, .json, .url, .base, .stem, .ext, .dir: return true
        default: return false
        }
    }

    /// Whether the filter applies to a value of this kind (`any`: maybe).
    package func accepts(_ kind: FilterValueKind) -> Bool {
        if kind == .any || readsAnyText { return true }
        switch self {
        case .count, .first, .last, .nth: return kind == .list
        case .jsonpath: return kind != .number
        default: return kind != .list
        }
    }

    /// What the filter gives.
    package var output: FilterValueKind {
        switch self {
        case .count, .toInt, .toFloat: return .number
        case .split: return .list
        case .first, .last, .nth, .jsonpath: return .any
        default: return .text
        }
    }

    /// What the filter applies to, in words: for messages.
    package var inputWords: String {
        switch self {
        case .count: return "a list (or an object)"
        case .first, .last, .nth: return "a list"
        case .jsonpath: return "a text holding JSON, a list or an object"
        case .toInt, .toFloat: return "a text or a number"
        default: return "a text"
        }
    }
}

extension FilterValueKind {
    /// `a text`, `a number`, `a list`: for messages.
    package var words: String {
        switch self {
        case .text: return "a text"
        case .number: return "a number"
        case .list: return "a list"
        case .any: return "a value"
        }
    }
}

/// Why a filter could not apply to a value.
package struct FilterFailure: Error, Sendable, Hashable {
    package var message: String

    package init(_ message: String) {
        self.message = message
    }
}

extension FilterCall {
    /// The filter as written: `nth 2`, `split ","`.
    package var sourceText: String {
        var text = filter.rawValue
        for argument in arguments {
            switch argument {
            case .integer(let value): text += " \(value)"
            case .text(let value): text += " \"" + value.escapedForTemplate() + "\""
            case .path(let path): text += " \"" + path.description.escapedForTemplate() + "\""
            }
        }
        return text
    }

    /// The filters of a chain as written after the value: ` | count | nth 0`.
    package static func sourceText(_ calls: [FilterCall]) -> String {
        calls.map { " | " + $0.sourceText }.joined()
    }

    /// Applies the filter. `sha256` gives the hex SHA-256 of a text (the
    /// model has no hash of its own).
    package func apply(to value: JSONDocument, sha256: (String) -> String) throws(FilterFailure) -> JSONDocument {
        func fail(_ reason: String) -> FilterFailure {
            FilterFailure("\(sourceText): \(reason)")
        }
        func wrongKind() -> FilterFailure {
            fail("it applies to \(filter.inputWords), not \(Self.describe(value))")
        }
        /// The text of a string, number, boolean or null.
        func text() throws(FilterFailure) -> String {
            switch value {
            case .array, .object: throw wrongKind()
            default: return value.textValue
            }
        }
        func list() throws(FilterFailure) -> [JSONDocument] {
            guard case .array(let items) = value else { throw wrongKind() }
            return items
        }
        if filter.readsAnyText { return .string(filter.apply(to: value.textValue)) }
        switch filter {
        case .count:
            switch value {
            case .array(let items): return .number(JSONNumber(items.count))
            case .object(let object): return .number(JSONNumber(object.members.count))
            default: throw wrongKind()
            }
        case .first:
            guard let item = try list().first else { throw fail("the list is empty") }
            return item
        case .last:
            guard let item = try list().last else { throw fail("the list is empty") }
            return item
        case .nth:
            let items = try list()
            guard case .integer(let index)? = arguments.first else { throw fail("no index") }
            let position = index < 0 ? items.count + index : index
            guard position >= 0, position < items.count else {
                throw fail("index \(index) is out of range (the list has \(items.count == 1 ? "1 item" : "\(items.count) items"))")
            }
            return items[position]
        case .split:
            guard case .text(let separator)? = arguments.first, !separator.isEmpty else { throw fail("no separator") }
            return .array(Self.split(try text(), at: separator).map { .string($0) })
        case .replace:
            guard arguments.count == 2, case .text(let old) = arguments[0], case .text(let new) = arguments[1], !old.isEmpty else {
                throw fail("no text to replace")
            }
            return .string(Self.split(try text(), at: old).joined(separator: new))
        case .lower: return .string(try text().lowercased())
        case .upper: return .string(try text().uppercased())
        case .toInt:
            if case .bool = value { throw wrongKind() }
            if case .null = value { throw wrongKind() }
            guard let number = Self.integer(try text()) else { throw fail("\(Self.describe(value)) is not an integer") }
            return .number(number)
        case .toFloat:
            if case .bool = value { throw wrongKind() }
            if case .null = value { throw wrongKind() }
            guard let number = Self.float(try text()) else { throw fail("\(Self.describe(value)) is not a number") }
            return .number(number)
        case .base64Encode: return .string(Base64.encode(try text().utf8))
        case .base64Decode:
            let encoded = try text()
            guard let bytes = Base64.decode(encoded) else { throw fail("\(Self.describe(value)) is not base64") }
            guard firstInvalidUTF8(bytes) == nil else { throw fail("the decoded bytes are not UTF-8 text") }
            return .string(String(decoding: bytes, as: UTF8.self))
        case .urlEncode: return .string(Filter.percentEncoded(try text()))
        case .urlDecode: return .string(Filter.percentDecoded(try text()))
        case .sha256: return .string(sha256(try text()))
        case .jsonpath:
            guard case .path(let path)? = arguments.first else { throw fail("no path") }
            let document: JSONDocument
            switch value {
            case .string(let json):
                do {
                    document = try JSONDocument.parse(json)
                } catch {
                    throw fail("the text is not JSON (\(error)): \(Self.describe(value))")
                }
            case .array, .object: document = value
            default: throw wrongKind()
            }
            do {
                return try document.value(at: path)
            } catch {
                throw fail("the path leads nowhere: \(error)")
            }
        case .trim, .shell, .json, .url, .base, .stem, .ext, .dir:
            return .string(filter.apply(to: value.textValue))
        }
    }

    /// Applies the filters left to right.
    package static func apply(_ calls: [FilterCall], to value: JSONDocument, sha256: (String) -> String) throws(FilterFailure) -> JSONDocument {
        var value = value
        for call in calls { value = try call.apply(to: value, sha256: sha256) }
        return value
    }

    /// The value for a message: `the string "abc"`, `the list [1,2]`.
    package static func describe(_ value: JSONDocument) -> String {
        var shown = value.serialized
        if shown.count > 60 { shown = String(shown.prefix(57)) + "..." }
        switch value {
        case .array: return "the list " + shown
        case .object: return "the object " + shown
        case .string: return "the text " + shown
        case .number: return "the number " + shown
        case .bool: return shown
        case .null: return "null"
        }
    }

    /// The pieces of `text` between each `separator` (none: one piece).
    private static func split(_ text: String, at separator: String) -> [String] {
        let bytes = Array(text.utf8)
        let cut = Array(separator.utf8)
        var pieces: [String] = []
        var start = 0
        var index = 0
        while index + cut.count <= bytes.count {
            if bytes[index] == cut[0], bytes[index..<(index + cut.count)].elementsEqual(cut) {
                pieces.append(String(decoding: bytes[start..<index], as: UTF8.self))
                index += cut.count
                start = index
            } else {
                index += 1
            }
        }
        pieces.append(String(decoding: bytes[start...], as: UTF8.self))
        return pieces
    }

    /// An integer from `-12`, `+7`, `0042` (as `42`), or a decimal's whole
    /// part (`3.9` → `3`, `-2.5e1` → `-25`); nil for anything else.
    static func integer(_ text: String) -> JSONNumber? {
        var body = Substring(text)
        var negative = false
        if body.hasPrefix("-") || body.hasPrefix("+") {
            negative = body.hasPrefix("-")
            body = body.dropFirst()
        }
        if !body.isEmpty, body.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            let digits = body.drop { $0 == "0" }
            if digits.isEmpty { return JSONNumber(0) }
            return JSONNumber(text: (negative ? "-" : "") + digits)
        }
        guard let number = float(text), let value = Double(number.text) else { return nil }
        let whole = value.rounded(.towardZero)
        guard let exact = Int(exactly: whole) else { return nil }
        return JSONNumber(exact)
    }

    /// A number from its text: digits, an optional sign, point and
    /// exponent (`1.5`, `-2e3`, `.5`); nil for anything else (`nan`,
    /// `inf`, hex).
    static func float(_ text: String) -> JSONNumber? {
        let bytes = Array(text.utf8)
        var index = 0
        func digits() -> Int {
            let start = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
            return index - start
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") { index += 1 }
        var count = digits()
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            count += digits()
        }
        guard count > 0 else { return nil }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") { index += 1 }
            guard digits() > 0 else { return nil }
        }
        guard index == bytes.count, let value = Double(text), value.isFinite else { return nil }
        return JSONNumber(text: String(value))
    }
}
