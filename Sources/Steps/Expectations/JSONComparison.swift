import PromiseEngine

/// `expect json PATH OP VALUE`: numbers compare by value, strings as
/// strings, booleans and null only for (in)equality. Values of different
/// types are never equal, and never ordered.
enum JSONComparison {
    static func holds(_ value: JSONDocument, _ op: ComparisonOperator, _ literal: JSONLiteral) -> Bool {
        let order: Int
        switch (value, literal) {
        case (.string(let text), .string(let template)):
            let wanted = template.literalValue ?? ""
            order = text < wanted ? -1 : (text == wanted ? 0 : 1)
        case (.number(let number), .integer(let wanted)):
            order = JSONNumber.compare(number, JSONNumber(wanted))
        case (.number(let number), .number(let wanted)):
            let actual = number.doubleValue
            order = actual < wanted ? -1 : (actual == wanted ? 0 : 1)
        case (.bool(let flag), .boolean(let wanted)):
            return equality(flag == wanted, op)
        case (.null, .null):
            return equality(true, op)
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
    static func describe(_ literal: JSONLiteral) -> String {
        switch literal {
        case .string(let template): return Excerpt.quoted(Substring(template.literalValue ?? template.sourceText))
        case .integer(let value): return String(value)
        case .number(let value): return String(value)
        case .boolean(let value): return value ? "true" : "false"
        case .null: return "null"
        }
    }
}
