/// A condition a step's result must meet (spec §6).
public enum StepExpectation: Sendable, Hashable {
    /// `expect status 200 2xx 200-299`: the response status is one of these.
    case status([StatusPattern])
    /// `expect exit 0 1`: the exit code is one of these.
    case exit([Int])
    /// `expect stdout contains "ok"` (also stderr, body).
    case contains(Stream, Template)
    /// `expect body matches 'v[0-9]+'`.
    case matches(Stream, RegexPattern)
    /// `expect header "Content-Type" contains "json"` (or `matches '...'`).
    case header(name: String, HeaderCheck)
    /// `expect json ".items[0].id" == 42`.
    case json(JSONPath, JSONCheck)

    /// The output of a step that `contains`, `matches` and captures read.
    public enum Stream: String, Sendable, Hashable {
        case stdout, stderr, body
    }

    /// How a response header is checked.
    public enum HeaderCheck: Sendable, Hashable {
        case contains(Template)
        case matches(RegexPattern)
    }
}

/// An accepted HTTP status: an exact code, or an inclusive range (`2xx` is
/// 200...299).
public enum StatusPattern: Sendable, Hashable, CustomStringConvertible {
    case code(Int)
    case range(ClosedRange<Int>)

    public func matches(_ status: Int) -> Bool {
        switch self {
        case .code(let code): return status == code
        case .range(let range): return range.contains(status)
        }
    }

    public var description: String {
        switch self {
        case .code(let code): return String(code)
        case .range(let range):
            if range.lowerBound % 100 == 0, range.upperBound == range.lowerBound + 99 {
                return "\(range.lowerBound / 100)xx"
            }
            return "\(range.lowerBound)-\(range.upperBound)"
        }
    }
}

/// A regular expression's source, checked at check time with the standard
/// library's `Regex` (its syntax); the step compiles it again.
public struct RegexPattern: Sendable, Hashable {
    public var source: String

    public init(_ source: String) {
        self.source = source
    }
}

/// The test of an `expect json PATH ...`.
public enum JSONCheck: Sendable, Hashable {
    /// `exists`: the path leads to a value (null included).
    case exists
    case compare(ComparisonOperator, JSONLiteral)
}

/// `==`, `!=`, `<`, `<=`, `>`, `>=`.
public enum ComparisonOperator: String, Sendable, Hashable, CaseIterable {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
}

/// The right-hand side of an `expect json` comparison.
public enum JSONLiteral: Sendable, Hashable, CustomStringConvertible {
    /// A string (which may interpolate): equal to a JSON string with this text.
    case string(Template)
    case integer(Int)
    /// A decimal written with a point: `9.5`.
    case number(Double)
    case boolean(Bool)
    case null

    public var description: String {
        switch self {
        case .string(let template): return "\"" + template.sourceText + "\""
        case .integer(let value): return String(value)
        case .number(let value): return String(value)
        case .boolean(let value): return String(value)
        case .null: return "null"
        }
    }
}

/// `capture NAME = SOURCE`: a value taken from the result, then available
/// as `{{label.NAME}}`.
public struct Capture: Sendable, Hashable {
    public var name: String
    public var source: Source

    public init(name: String, source: Source) {
        self.name = name
        self.source = source
    }

    /// Where a capture takes its value.
    public enum Source: Sendable, Hashable {
        /// `json ".token"`
        case json(JSONPath)
        /// `header "ETag"`
        case header(String)
        /// `stdout matches 'v([0-9.]+)'`: the first group, else the whole match.
        case matches(StepExpectation.Stream, RegexPattern)
    }
}
