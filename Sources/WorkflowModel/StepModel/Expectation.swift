public import JSON
import PromiseEngine

extension StepModel {
    /// A condition a step's result must meet.
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
        /// `expect md5 == "..."`: the body's MD5 in lower-case hex (`!=`
        /// negates).
        case md5(String, negated: Bool)
        /// `expect duration < 200ms`: how long the step took (the response
        /// arrives, then the step fails with kind `expect`).
        case duration(ComparisonOperator, Duration)
        /// `expect body | jsonpath "$.id" | toInt == 3`, `expect header
        /// "X-Total" | toInt > 10`: a value of the result through filters,
        /// checked as a JSON value is.
        case value(ValueSubject, filters: [FilterCall], JSONCheck)

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
        /// `startsWith STRING`: a string value begins with it.
        indirect case startsWith(Text, negated: Bool)
        /// `endsWith STRING`: a string value ends with it.
        indirect case endsWith(Text, negated: Bool)
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
        /// `[1, 2, "a"]`: a list, equal to an array of equal items in order.
        indirect case list([JSONLiteral])

        /// Whether it is a string.
        @inlinable
        package var isString: Bool {
            if case .string = self { return true }
            return false
        }

        @inlinable
        package var description: String {
            switch self {
            case .list(let items): return "[" + items.map(\.description).joined(separator: ", ") + "]"
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

/// What an expectation with filters reads: `expect SUBJECT |
/// FILTER ... CHECK`.
/// See docs/steps.md, 'For Hurl users'.
@usableFromInline
package enum ValueSubject: Sendable, Hashable {
    /// `body`, `stdout`, `stderr`: the text.
    case stream(ResultStream)
    /// `header "NAME"`: its value (values that came more than once, joined
    /// with `, `).
    case header(String)
    /// `json "PATH"`: the value at the path.
    case json(JSONPath)
    /// `url`: the final URL, after redirects.
    case url
    /// `version`: the HTTP version of the response, `1.1` or `2`.
    case version
    /// `cookie "NAME"`: the value the response's `Set-Cookie` gives it;
    /// with `attribute "ATTR"`, that attribute's (`Max-Age`, `Secure`).
    case cookie(String, attribute: String?)
    /// `xpath "EXPR"`: XPath 1.0 on an HTML or XML body; a node set is the
    /// list of its nodes' texts.
    case xpath(String)
    /// `certificate FIELD`: a field of the server's TLS certificate.
    case certificate(CertificateField)

    /// The subject as written: `body`, `header "X"`, `json ".id"`.
    package var sourceText: String {
        func quoted(_ text: String) -> String { "\"" + text.escapedForTemplate() + "\"" }
        switch self {
        case .stream(let stream): return stream.rawValue
        case .header(let name): return "header " + quoted(name)
        case .json(let path): return "json " + quoted(path.description)
        case .url: return "url"
        case .version: return "version"
        case .cookie(let name, let attribute): return "cookie " + quoted(name) + (attribute.map { " attribute " + quoted($0) } ?? "")
        case .xpath(let expression): return "xpath " + quoted(expression)
        case .certificate(let field): return "certificate " + field.rawValue
        }
    }

    /// Whether the subject is a time that compares as one (a
    /// certificate's dates).
    package var isDate: Bool {
        switch self {
        case .certificate(.startDate), .certificate(.expireDate): return true
        default: return false
        }
    }

    /// What the subject is before its filters.
    package var kind: FilterValueKind {
        switch self {
        case .stream, .header, .url, .version, .cookie, .certificate: return .text
        case .json, .xpath: return .any
        }
    }
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

/// Hurl's predicates on a value: `expect json ".id" isUuid`.
/// See docs/steps.md, 'For Hurl users'.
@usableFromInline
package enum ValuePredicate: String, Sendable, Hashable, CaseIterable {
    case isUuid, isIsoDate, isIpv4, isIpv6, isNumber, isString, isBoolean, isList, isObject, isEmpty
}

/// The fields of a server's certificate:
/// `expect certificate subject contains "CN=api"`.
/// See docs/steps.md, 'For Hurl users'.
@usableFromInline
package enum CertificateField: String, Sendable, Hashable, CaseIterable {
    case subject
    case issuer
    case startDate = "start-date"
    case expireDate = "expire-date"
    case serialNumber = "serial-number"
}

/// The HTTP version an http step asks for: `http-version 1.1|2`,
/// `--http-version`.
/// See docs/steps.md, 'For Hurl users'.
@usableFromInline
package enum HTTPVersion: String, Sendable, Hashable, CaseIterable {
    // swift-format-ignore: AlwaysUseLowerCamelCase
    case http1_1 = "1.1"
    case http2 = "2"
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
    /// `| count`, `| nth 0` ...: applied to the value taken.
    @usableFromInline
    package var filters: [FilterCall]

    @inlinable
    package init(name: String, source: Source, filters: [FilterCall] = []) {
        self.name = name
        self.source = source
        self.filters = filters
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
        /// `xpath "EXPR"`: XPath 1.0 on an HTML or XML body.
        case xpath(String)
        /// `certificate FIELD`: a field of the server's TLS certificate.
        case certificate(CertificateField)
    }
}
