import PromiseEngine
import JSON

extension StepModel {
    /// A condition a step's result must meet (spec §6, §11).
    @usableFromInline
    package enum StepExpectation: Sendable, Hashable {
        /// `expect status 200 2xx 200-299`: the response status is one of these.
        case status([StatusPattern])
        /// `expect exit 0 1`: the exit code is one of these.
        case exit([Int])
        /// `expect stdout contains "ok"`, `expect body == "..."`,
        /// `expect stderr not matches '...'` (also stdout, stderr, body).
        case text(Stream, TextPredicate)
        /// `expect header "Content-Type" contains "json"`, `... count == 2`,
        /// `... not exists`.
        case header(name: String, HeaderCheck)
        /// `expect json ".items[0].id" == 42`, `... count > 1`, `... is integer`.
        case json(JSONPath, JSONCheck)
        /// `expect sha256 == "9f86..."`: the body's SHA-256 in lower-case
        /// hex (`!=` negates).
        case sha256(String, negated: Bool)
        /// `expect bytes count OP N`: the body's size in bytes.
        case bytes(ComparisonOperator, Int)

        /// The output of a step that text predicates and captures read.
        @usableFromInline
        package typealias Stream = ResultStream

        /// How a response header is checked.
        @usableFromInline
        package enum HeaderCheck: Sendable, Hashable {
            /// A text predicate on its value: holds when some value the header
            /// came with satisfies it (with `not`: when none does).
            case text(TextPredicate)
            /// How many times the header came.
            case count(ComparisonOperator, Int)
            /// `exists` / `not exists`.
            case exists(negated: Bool)
        }
    }

    /// `== "..."`, `!= "..."`, `contains "..."`, `matches '...'`, each
    /// possibly after `not` (`!=` is `not ==`).
    @usableFromInline
    package struct TextPredicate: Sendable, Hashable {
        /// What is compared.
        @usableFromInline
        package enum Test: Sendable, Hashable {
            /// The whole text equals this.
            indirect case equals(Text)
            indirect case contains(Text)
            /// `startsWith "..."`: the text begins with this.
            indirect case startsWith(Text)
            /// `endsWith "..."`: the text ends with this.
            indirect case endsWith(Text)
            case matches(RegexPattern)
        }

        /// The comparison.
        @usableFromInline
        package var test: Test
        /// `not` (or `!=`): holds when the test does not.
        @usableFromInline
        package var negated: Bool

        /// A predicate, negated or not.
        @inlinable
        package init(_ test: Test, negated: Bool = false) {
            self.test = test
            self.negated = negated
        }
    }

    /// The test of an `expect json PATH ...`.
    @usableFromInline
    package enum JSONCheck: Sendable, Hashable {
        /// `exists` (the path leads to a value, null included) or `not exists`.
        case exists(negated: Bool)
        case compare(ComparisonOperator, JSONLiteral)
        /// `count OP N`: an array's length or an object's number of members.
        case count(ComparisonOperator, Int)
        /// `contains STRING`: an array has an element equal to it (a string
        /// element with this text, or a number, boolean or null written so), or
        /// a string has it as a substring.
        indirect case contains(Text, negated: Bool)
        /// `matches 'RE'`: a string value (a number, boolean or null by its text).
        case matches(RegexPattern, negated: Bool)
        /// `is TYPE`.
        case isType(JSONType, negated: Bool)
        /// `isUuid`, `isIsoDate`, `isIpv4` ... (Hurl's predicates), or `not` one.
        case predicate(ValuePredicate, negated: Bool)
    }

    /// The right-hand side of an `expect json` comparison.
    @usableFromInline
    package enum JSONLiteral: Sendable, Hashable, CustomStringConvertible {
        /// A string (as written, it may interpolate): equal to a JSON string with this text.
        indirect case string(Text)
        /// An integer as written, of any size: compared exactly.
        case integer(String)
        /// A decimal written with a point: `9.5`.
        case number(Double)
        case boolean(Bool)
        case null

        @inlinable
        package var description: String {
            switch self {
            case .string(let text): return "\"" + text.sourceText + "\""
            case .integer(let digits): return digits
            case .number(let value): return String(value)
            case .boolean(let value): return String(value)
            case .null: return "null"
            }
        }
    }
}

/// The output of a step that text predicates and captures read.
@usableFromInline
package enum ResultStream: String, Sendable, Hashable {
    case stdout, stderr, body
}

/// An accepted HTTP status: an exact code, or an inclusive range (`2xx` is
/// 200...299).
@usableFromInline
package enum StatusPattern: Sendable, Hashable, CustomStringConvertible {
    case code(Int)
    case range(ClosedRange<Int>)

    @inlinable
    package func matches(_ status: Int) -> Bool {
        switch self {
        case .code(let code): return status == code
        case .range(let range): return range.contains(status)
        }
    }

    @inlinable
    package var description: String {
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
@usableFromInline
package struct RegexPattern: Sendable, Hashable {
    @usableFromInline
    package var source: String

    @inlinable
    package init(_ source: String) {
        self.source = source
    }
}

/// The types `expect json PATH is TYPE` names.
@usableFromInline
package enum JSONType: String, Sendable, Hashable, CaseIterable {
    case string, number, integer, boolean, null, array, object
}

/// Hurl's predicates on a value (spec §23): `expect json ".id" isUuid`.
@usableFromInline
package enum ValuePredicate: String, Sendable, Hashable, CaseIterable {
    case isUuid, isIsoDate, isIpv4, isIpv6, isNumber, isString, isBoolean, isList, isObject, isEmpty
}

/// `==`, `!=`, `<`, `<=`, `>`, `>=`.
@usableFromInline
package enum ComparisonOperator: String, Sendable, Hashable, CaseIterable {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
}

/// `capture NAME = SOURCE`: a value taken from the result, then available
/// as `{{label.NAME}}`.
@usableFromInline
package struct Capture: Sendable, Hashable {
    @usableFromInline
    package var name: String
    @usableFromInline
    package var source: Source

    @inlinable
    package init(name: String, source: Source) {
        self.name = name
        self.source = source
    }

    /// Where a capture takes its value.
    @usableFromInline
    package enum Source: Sendable, Hashable {
        /// `json ".token"`
        case json(JSONPath)
        /// `header "ETag"`
        case header(String)
        /// `stdout matches 'v([0-9.]+)'`: the first group, else the whole match.
        case matches(ResultStream, RegexPattern)
        /// `header "Location" matches '/orders/([0-9]+)'`: the same, on the
        /// header's first value that matches.
        case headerMatches(String, RegexPattern)
        /// `cookie "session"`: the cookie's value in the run's store after
        /// the step.
        case cookie(String)
        /// `url`: the final URL after redirects.
        case url
    }
}
