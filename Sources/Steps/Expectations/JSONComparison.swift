import JSON
import PromiseEngine
import WorkflowModel

/// `expect json PATH OP VALUE`: numbers compare by value, strings as
/// strings, booleans and null only for (in)equality. Values of different
/// types are never equal, and never ordered.
enum JSONComparison {
    static func holds(_ value: JSONDocument, _ op: ComparisonOperator, _ literal: ResolvedJSONLiteral) -> Bool {
        let order: Int
        switch (value, literal) {
        case (.string(let text), .string(let wanted)):
            order = text < wanted ? -1 : (text == wanted ? 0 : 1)
        case (.number(let number), .integer(let wanted)):
            order = JSONNumber.compare(number, JSONNumber(text: wanted))
        case (.number(let number), .number(let wanted)):
            let actual = number.doubleValue
            order = actual < wanted ? -1 : (actual == wanted ? 0 : 1)
        case (.bool(let flag), .boolean(let wanted)):
            return equality(flag == wanted, op)
        case (.null, .null):
            return equality(true, op)
        case (.array(let items), .list(let wanted)):
            let equal = items.count == wanted.count && zip(items, wanted).allSatisfy { holds($0, .equal, $1) }
            return equality(equal, op)
        default:
            // Different types: never equal, never ordered.
            return op == .notEqual
        }
        switch op {
        case .equal: return order == 0
        case .notEqual: return order != 0
        case .less: return order < 0
        case .lessOrEqual: return order <= 0
        case .greater: return order > 0
        case .greaterOrEqual: return order >= 0
        }
    }

    /// Booleans and null are only equal or not.
    private static func equality(_ equal: Bool, _ op: ComparisonOperator) -> Bool {
        switch op {
        case .equal: return equal
        case .notEqual: return !equal
        default: return false
        }
    }

    /// The literal as the message shows it: strings quoted, numbers as written.
    static func describe(_ literal: ResolvedJSONLiteral) -> String {
        switch literal {
        case .string(let text): return Excerpt.quoted(Substring(text))
        case .integer(let digits): return digits
        case .number(let value): return String(value)
        case .boolean(let value): return value ? "true" : "false"
        case .null: return "null"
        case .list(let items): return "[" + items.map(describe).joined(separator: ", ") + "]"
        }
    }

    /// `count OP N` on two counts (or two times).
    static func order<Value: Comparable>(_ count: Value, _ wanted: Value, _ op: ComparisonOperator) -> Bool {
        switch op {
        case .equal: return count == wanted
        case .notEqual: return count != wanted
        case .less: return count < wanted
        case .lessOrEqual: return count <= wanted
        case .greater: return count > wanted
        case .greaterOrEqual: return count >= wanted
        }
    }

    /// Whether an array element is the value `contains` names: a string
    /// with this text, or a number, boolean or null written so.
    static func element(_ item: JSONDocument, equals wanted: String) -> Bool {
        switch item {
        case .string(let text): return text == wanted
        case .number(let number):
            return JSONNumber.compare(number, JSONNumber(text: wanted)) == 0 && isNumberText(wanted)
        case .bool(let flag): return (flag ? "true" : "false") == wanted
        case .null: return wanted == "null"
        case .array, .object: return false
        }
    }

    private static func isNumberText(_ text: String) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy {
                ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
                    || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") || $0 == UInt8(ascii: "+")
            }
    }

    /// `is TYPE`: `integer` is a number written without fraction or
    /// exponent (or whose fraction is zero); every integer is a `number`.
    static func isType(_ value: JSONDocument, _ type: JSONType) -> Bool {
        switch (value, type) {
        case (.string, .string), (.number, .number), (.bool, .boolean), (.null, .null), (.array, .array), (.object, .object):
            return true
        case (.number(let number), .integer):
            return isIntegerText(number.text)
        default:
            return false
        }
    }

    /// An integer's text: digits, maybe a minus, maybe `.0`s.
    private static func isIntegerText(_ text: String) -> Bool {
        var digits = Substring(text)
        if digits.hasPrefix("-") { digits = digits.dropFirst() }
        if let point = digits.firstIndex(of: ".") {
            guard digits[digits.index(after: point)...].allSatisfy({ $0 == "0" }) else { return false }
            digits = digits[..<point]
        }
        return !digits.isEmpty && digits.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    /// `an integer`, `a string`: for messages.
    static func typeWords(_ value: JSONDocument) -> String {
        if case .number(let number) = value {
            return isIntegerText(number.text) ? "an integer" : "a number"
        }
        return article(value.typeName)
    }

    /// `an integer`, `a string`.
    static func article(_ word: String) -> String {
        (word.first.map { "aeiou".contains($0) } ?? false ? "an " : "a ") + word
    }
}
