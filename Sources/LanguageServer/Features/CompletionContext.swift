import WorkflowLanguage
import WorkflowModel

/// What the cursor is in, read from the text itself (so that it works on
/// a line being typed, which does not parse yet).
enum CompletionContext: Equatable {
    /// At the start of a statement: `owner` is the step or group kind of
    /// the block around it (nil at the top level); `afterLabel` when a
    /// `label:` comes before the cursor.
    case statement(owner: String?, afterLabel: Bool)
    /// Inside `{{ }}`: the text typed after `{{` (or after the last `|`,
    /// for a filter).
    case expression(String)
    case filter
    /// After `needs`.
    case needs
    /// After `expect`: in a step's block, or a group's (a threshold).
    case expectation(inGroup: Bool)
    /// After `expect` in the block of a step of this kind.
    case stepExpectation(kind: String)
    /// After `capture NAME =` in the block of a step of this kind.
    case captureSource(kind: String)
    /// Where an expectation's test comes: after its subject (`expect body`,
    /// `expect json ".id"`, `expect certificate issuer`), maybe after `not`.
    case predicate
    /// After `certificate` in an expectation or a capture.
    case certificateField
    /// After `catch` (and the kinds already named).
    case catchKind
    /// After `retry N`.
    case retryOption
    /// After `foreach NAME in`.
    case list
    /// After `parallel` (a group's, or a foreach's or a repeat's iterations).
    case parallelOption
    /// After `file`.
    case fileOperation
    /// After `http`.
    case httpMethod
    case none

    /// The context at `offset` of `bytes`.
    static func at(_ offset: Int, in bytes: [UInt8], lines: LineIndex) -> CompletionContext {
        let line = lines.line(of: offset)
        let lineStart = lines.starts[line]
        let prefix = String(decoding: bytes[lineStart..<offset], as: UTF8.self)
        if let open = prefix.range(ofLast: "{{"), !prefix[open.upperBound...].contains("}}") {
            let inside = prefix[open.upperBound...]
            if inside.contains("|") { return .filter }
            return .expression(String(inside.drop { $0 == " " }))
        }
        let trimmed = prefix.drop { $0 == " " || $0 == "\t" }
        let words = trimmed.split(separator: " ", omittingEmptySubsequences: true)
        let endsInSpace = prefix.last == " " || prefix.last == "\t"
        // The words before the one being typed.
        let before = endsInSpace ? words : words.dropLast()
        var head = before.first.map(String.init)
        var afterLabel = false
        if let first = head, first.hasSuffix(":"), first.count > 1, !first.contains("\"") {
            afterLabel = true
            head = before.dropFirst().first.map(String.init)
            if head == nil { return .statement(owner: owner(before: lineStart, in: bytes), afterLabel: true) }
        }
        guard let head else { return .statement(owner: owner(before: lineStart, in: bytes), afterLabel: afterLabel) }
        let count = before.count - (afterLabel ? 1 : 0)
        // `capture n = json "$.a" | co`, `expect body | jsonpath "$.id" | to`:
        // after a `|` outside strings, a filter.
        if head == "capture" || head == "expect", let last = lastPipeOutsideStrings(prefix) {
            let after = prefix[prefix.index(prefix.startIndex, offsetBy: last + 1)...]
            let typed = after.split(separator: " ", omittingEmptySubsequences: true)
            if typed.count == 0 || (typed.count == 1 && !endsInSpace) { return .filter }
        }
        if head == "expect" || head == "capture", let subjectContext = afterSubject(prefix, endsInSpace: endsInSpace) { return subjectContext }
        switch head {
        case "needs": return .needs
        case "expect" where count == 1:
            let owner = owner(before: lineStart, in: bytes)
            if let owner, LanguageTable.stepKinds.contains(where: { $0.name == owner }) { return .stepExpectation(kind: owner) }
            return .expectation(inGroup: owner.map { name in LanguageTable.groupKinds.contains { $0.name == name } } ?? false)
        case "capture" where count == 3 && before.last == "=":
            return owner(before: lineStart, in: bytes).map { .captureSource(kind: $0) } ?? .none
        case "catch" where !prefix.contains("{"): return .catchKind
        case "retry" where count == 2 && Int(before[before.index(before.startIndex, offsetBy: afterLabel ? 2 : 1)]) != nil:
            return .retryOption
        case "foreach" where count == 3 && before.last == "in": return .list
        case "file" where count == 1: return .fileOperation
        case "http" where count == 1: return .httpMethod
        default:
            if before.contains("parallel"), !prefix.contains("{") { return .parallelOption }
            return .none
        }
    }

    /// The subjects a predicate may follow (`expect body isUuid`, `expect
    /// json ".id" not isEmpty`), and how many strings come between.
    private static let predicateSubjects: [String: Int] = [
        "body": 0, "stdout": 0, "stderr": 0, "url": 0, "version": 0, "header": 1, "json": 1, "xpath": 1, "cookie": 1,
    ]

    /// In `expect SUBJECT ...` or `capture NAME = certificate`: a
    /// certificate's field right after `certificate`, a predicate where
    /// the test of the subject comes; nil elsewhere (and inside a string).
    private static func afterSubject(_ prefix: String, endsInSpace: Bool) -> CompletionContext? {
        guard let typed = words(prefix) else { return nil }
        var before = endsInSpace ? typed[...] : typed.dropLast()
        if before.first == "capture" {
            return before.count == 4 && before.dropFirst(2).elementsEqual(["=", "certificate"]) ? .certificateField : nil
        }
        before = before.dropFirst()
        guard let subject = before.popFirst() else { return nil }
        if subject == "certificate", before.isEmpty { return .certificateField }
        if before.last == "not" { before = before.dropLast() }
        var arguments: Int
        if subject == "certificate" {
            arguments = 1
        } else if let count = predicateSubjects[subject] {
            arguments = count
            // `cookie "sid" attribute "Max-Age"`: an attribute's value.
            if subject == "cookie", before.count == 3, before[before.index(after: before.startIndex)] == "attribute" { arguments = 3 }
            guard before.allSatisfy({ $0.first == "\"" || $0.first == "'" || $0 == "attribute" }) else { return nil }
        } else {
            return nil
        }
        return before.count == arguments ? .predicate : nil
    }

    /// A line's words, a quoted string one word (its quotes kept); nil when
    /// the line ends inside a string.
    static func words(_ text: String) -> [String]? {
        var words: [String] = []
        var word = ""
        var quote: Character?
        var escaped = false
        for character in text {
            if let open = quote {
                word.append(character)
                if escaped { escaped = false } else if character == "\\", open == "\"" { escaped = true } else if character == open { quote = nil }
            } else if character == " " || character == "\t" {
                if !word.isEmpty { words.append(word) }
                word = ""
            } else {
                if character == "\"" || character == "'" { quote = character }
                word.append(character)
            }
        }
        guard quote == nil else { return nil }
        if !word.isEmpty { words.append(word) }
        return words
    }

    /// Where the last `|` outside a string is in a line's text (in
    /// characters), if there is one.
    static func lastPipeOutsideStrings(_ text: String) -> Int? {
        var quote: Character?
        var found: Int?
        var escaped = false
        for (index, character) in text.enumerated() {
            if let open = quote {
                if escaped { escaped = false } else if character == "\\", open == "\"" { escaped = true } else if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == "|" {
                found = index
            }
        }
        return found
    }

    /// The kind of the innermost block open before `offset`: the first
    /// word (after a label) of the line whose `{` is still open. `{{ }}`,
    /// strings and comments do not count.
    static func owner(before offset: Int, in bytes: [UInt8]) -> String? {
        var openers: [Int] = []  // where the line of each open `{` starts
        var lineStart = 0
        var index = 0
        var quote: UInt8? = nil
        while index < offset {
            let byte = bytes[index]
            if let open = quote {
                if byte == UInt8(ascii: "\\"), open == UInt8(ascii: "\"") {
                    index += 2
                    continue
                }
                if byte == open || byte == 0x0A { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: "#") {
                while index < offset, bytes[index] != 0x0A { index += 1 }
                continue
            } else if byte == UInt8(ascii: "{") {
                if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "{") {
                    index += 2
                    while index + 1 < offset, !(bytes[index] == UInt8(ascii: "}") && bytes[index + 1] == UInt8(ascii: "}")) { index += 1 }
                    index += 2
                    continue
                }
                openers.append(lineStart)
            } else if byte == UInt8(ascii: "}") {
                _ = openers.popLast()
            }
            if byte == 0x0A { lineStart = index + 1 }
            index += 1
        }
        guard let start = openers.last else { return nil }
        var end = start
        while end < bytes.count, bytes[end] != 0x0A { end += 1 }
        let words = String(decoding: bytes[start..<end], as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard var first = words.first.map(String.init) else { return nil }
        if first.hasSuffix(":"), words.count > 1 { first = String(words[1]) }
        if first == "}" && words.count > 1 { first = String(words[1]) }  // `} else {`
        return first == "else" ? "if" : first
    }
}

extension StringProtocol {
    /// The range of the last occurrence of `needle`.
    func range(ofLast needle: String) -> Range<Index>? {
        var found: Range<Index>?
        var search = startIndex
        while let range = self[search...].firstRange(of: needle) {
            found = range
            search = index(after: range.lowerBound)
        }
        return found
    }
}
