import PromiseEngine
import RunnerSystem
import WorkflowModel

// `expect ...` and `capture NAME = ...` in a step's block.
// See docs/steps.md, 'Expectations and captures'.

extension Parser {
    static let expectationSubjects = LanguageTable.expectationSubjects.map(\.name)

    /// Which step kinds an expectation or capture subject applies to.
    private static func subjectKinds(_ subject: String) -> [String] {
        switch subject {
        case "exit", "stdout", "stderr": return ["sh", "exec"]
        case "duration": return ["sh", "exec", "http"]
        default: return ["http"]
        }
    }

    private mutating func checkSubject(_ subject: String, range: SourceRange, kind: String, phrase: String) throws(ParseFailure) {
        let kinds = Parser.subjectKinds(subject)
        guard kinds.contains(kind) else {
            var hint = "it is for \(kinds.joined(separator: " and ")) steps"
            if subject == "status" { hint += "; \(kind) steps have 'expect exit'" }
            if subject == "exit" { hint += "; http steps have 'expect status'" }
            if subject == "body" { hint += "; \(kind) steps have stdout and stderr" }
            throw error("\(phrase) does not apply to \(kind) steps; \(hint)", at: range)
        }
    }

    /// After `expect`.
    mutating func parseExpectation(_ kind: String) throws(ParseFailure) -> StepExpectation {
        guard current.kind == .identifier else {
            throw error("expected what to expect after 'expect' (\(Parser.expectationSubjects.joined(separator: ", "))), found \(found)")
        }
        let subject = text(current)
        let subjectRange = current.range
        if Parser.thresholdSubjects.contains(subject) {
            throw error(
                "'expect \(subject)' is a threshold of a group, checked when the group ends; write it in the block of the group "
                    + "around this step (repeat, foreach, parallel, sequence), as in 'repeat 100 { expect \(subject) ... }'")
        }
        guard Parser.expectationSubjects.contains(subject) else {
            throw error(
                "unknown expectation '\(subject)'\(Suggestion.phrase(for: subject, among: Parser.expectationSubjects))",
                notes: [.init("write expect \(Parser.expectationSubjects.joined(separator: ", "))")])
        }
        try checkSubject(subject, range: subjectRange, kind: kind, phrase: "'expect \(subject)'")
        advance()
        switch subject {
        case "status":
            var patterns: [StatusPattern] = []
            repeat {
                patterns.append(try parseStatusPattern())
            } while current.kind == .number
            return .status(patterns)
        case "exit":
            var codes: [Int] = []
            repeat {
                codes.append(try parseInteger("an exit code", range: 0...255))
            } while current.kind == .number
            return .exit(codes)
        case "sha256", "md5":
            let negated = current.kind == .bangEqual
            guard current.kind == .equalEqual || negated else {
                throw error("expected '==' or '!=' after 'expect \(subject)', found \(found)")
            }
            advance()
            let token = current
            let name = subject == "md5" ? "an MD5" : "a SHA-256"
            let digits = subject == "md5" ? 32 : 64
            let hex = try parseLiteralString("the body's \(subject == "md5" ? "MD5" : "SHA-256") in hex")
            guard hex.utf8.count == digits, hex.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
                throw error(
                    "\(name) is \(digits) lower-case hex digits, not \(hex.utf8.count == digits ? "'\(hex)'" : "\(hex.utf8.count) characters")",
                    at: token.range)
            }
            return subject == "md5" ? .md5(hex, negated: negated) : .sha256(hex, negated: negated)
        case "duration":
            let op = try parseComparison(after: "'expect duration'")
            return .duration(op, try parseDuration())
        case "url", "version":
            let valueSubject: ValueSubject = subject == "url" ? .url : .version
            let filters = current.kind == .pipe ? try parseFilters(from: .text, subject: "the \(subject == "url" ? "URL" : "version")") : []
            let check = try parseValueCheck(after: filters.isEmpty ? "'expect \(subject)'" : "the filters")
            // `expect version == 2` would compare a text with a number: never equal.
            if subject == "version", filters.isEmpty, case .compare(_, let literal) = check, !literal.isString {
                throw error("the HTTP version is text: write expect version == \"\(literal)\" (\"1.1\" or \"2\")", at: subjectRange)
            }
            return .value(valueSubject, filters: filters, check)
        case "certificate":
            let field = try parseCertificateField()
            let filters = current.kind == .pipe ? try parseFilters(from: .text, subject: "the certificate's \(field.rawValue)") : []
            let check = try parseValueCheck(after: filters.isEmpty ? "'certificate \(field.rawValue)'" : "the filters")
            if filters.isEmpty, field == .expireDate || field == .startDate, case .compare(let op, let literal) = check, op != .equal, op != .notEqual
            {
                guard case .string(let template) = literal else {
                    throw error("compare the certificate's \(field.rawValue) with a time in quotes: \"2030-01-01T00:00:00Z\"", at: subjectRange)
                }
                if let text = template.literalValue, RFC3339.parse(text) == nil {
                    throw error("'\(text)' is not an RFC 3339 time; write \"2030-01-01T00:00:00Z\" (or a date: \"2030-01-01\")", at: subjectRange)
                }
            }
            return .value(.certificate(field), filters: filters, check)
        case "xpath":
            let expression = try parseLiteralString("an XPath expression")
            let filters = current.kind == .pipe ? try parseFilters(from: .any, subject: "an XPath value") : []
            return .value(.xpath(expression), filters: filters, try parseValueCheck(after: filters.isEmpty ? "the XPath expression" : "the filters"))
        case "cookie":
            let name = try parseName("a cookie name")
            var attribute: String?
            if isKeyword("attribute") {
                advance()
                attribute = try parseName("a cookie attribute (Value, Expires, Max-Age, Domain, Path, Secure, HttpOnly, SameSite)")
            }
            let filters = current.kind == .pipe ? try parseFilters(from: .text, subject: "the cookie") : []
            return .value(
                .cookie(name, attribute: attribute), filters: filters, try parseValueCheck(after: filters.isEmpty ? "the cookie" : "the filters"))
        case "bytes":
            guard isKeyword("count") else { throw error("expected 'count' after 'expect bytes' (expect bytes count == N), found \(found)") }
            advance()
            let op = try parseComparison(after: "'bytes count'")
            return .bytes(op, try parseInteger("a size in bytes", range: 0...Int(Int32.max)))
        case "stdout", "stderr", "body":
            let stream = StepExpectation.Stream(rawValue: subject)!
            if current.kind == .pipe {
                let filters = try parseFilters(from: .text, subject: "the \(subject)")
                return .value(.stream(stream), filters: filters, try parseValueCheck(after: "the filters"))
            }
            if atValuePredicate() {
                return .value(.stream(stream), filters: [], try parseValueCheck(after: "'expect \(subject)'"))
            }
            return .text(stream, try parseTextPredicate(after: "'expect \(subject)'"))
        case "header":
            let name = try parseName("a header name")
            if current.kind == .pipe {
                let filters = try parseFilters(from: .text, subject: "the header")
                return .value(.header(name), filters: filters, try parseValueCheck(after: "the filters"))
            }
            if atValuePredicate() {
                return .value(.header(name), filters: [], try parseValueCheck(after: "the header name"))
            }
            if isKeyword("count") {
                advance()
                let op = try parseComparison(after: "'count'")
                return .header(name: name, .count(op, try parseInteger("a count", range: 0...Int(Int32.max))))
            }
            if isKeyword("exists") {
                advance()
                return .header(name: name, .exists(negated: false))
            }
            if isKeyword("not"), peekKeyword("exists") {
                advance()
                advance()
                return .header(name: name, .exists(negated: true))
            }
            return .header(name: name, .text(try parseTextPredicate(after: "the header name", extra: ["count", "exists"])))
        default:
            let path = try parseJSONPath()
            if current.kind == .pipe {
                let filters = try parseFilters(from: .any, subject: "a JSON value")
                return .value(.json(path), filters: filters, try parseValueCheck(after: "the filters"))
            }
            return .json(path, try parseValueCheck(after: "the JSON path"))
        }
    }

    /// The test of a JSON value, or of a value through filters: `== 3`,
    /// `exists`, `contains "x"`, `startsWith "x"`, `matches 'RE'`, `count OP N`,
    /// `is TYPE`, `isUuid` ..., some after `not`.
    mutating func parseValueCheck(after context: String) throws(ParseFailure) -> JSONCheck {
        var negated = false
        if isKeyword("not") {
            advance()
            negated = true
            guard
                isKeyword("exists") || isKeyword("contains") || isKeyword("matches") || isKeyword("startsWith") || isKeyword("endsWith")
                    || valuePredicate != nil
            else {
                throw error(
                    "expected 'exists', 'contains', 'startsWith', 'endsWith', 'matches' or a predicate (isUuid ...) after 'not', found \(found)"
                        + (current.kind == .equalEqual ? "; write '!=' for 'not =='" : ""))
            }
        }
        if isKeyword("exists") {
            advance()
            return .exists(negated: negated)
        }
        if let predicate = valuePredicate {
            advance()
            return .predicate(predicate, negated: negated)
        }
        if isKeyword("startsWith") {
            advance()
            return .startsWith(try parseTemplate("after 'startsWith'"), negated: negated)
        }
        if isKeyword("endsWith") {
            advance()
            return .endsWith(try parseTemplate("after 'endsWith'"), negated: negated)
        }
        if isKeyword("contains") {
            advance()
            // `contains 2`, `contains true`: an element written so (as a
            // quoted "2" also finds, by the text of the element).
            if current.kind == .number || (current.kind == .identifier && ["true", "false", "null"].contains(text(current))) {
                let word = text(current)
                advance()
                return .contains(.literal(word), negated: negated)
            }
            return .contains(try parseTemplate("after 'contains'"), negated: negated)
        }
        if isKeyword("matches") {
            advance()
            return .matches(try parseRegex(), negated: negated)
        }
        if isKeyword("count") {
            advance()
            let op = try parseComparison(after: "'count'")
            return .count(op, try parseInteger("a count", range: 0...Int(Int32.max)))
        }
        if isKeyword("is") {
            advance()
            var negatedType = false
            if isKeyword("not") {
                advance()
                negatedType = true
            }
            let names = JSONType.allCases.map(\.rawValue)
            guard current.kind == .identifier else {
                throw error("expected a type after 'is' (\(names.joined(separator: ", "))), found \(found)")
            }
            let word = text(current)
            guard let type = JSONType(rawValue: word) else {
                throw error(
                    "unknown JSON type '\(word)'\(Suggestion.phrase(for: word, among: names))",
                    notes: [.init("the types are \(names.joined(separator: ", "))")])
            }
            advance()
            return .isType(type, negated: negatedType)
        }
        if current.kind == .identifier {
            let word = text(current)
            let words =
                ["exists", "contains", "startsWith", "endsWith", "matches", "count", "is", "not"] + LanguageTable.valuePredicates.map(\.name)
                + (context == "the JSON path" ? [] : Filter.allCases.map(\.rawValue))
            var message =
                "expected a comparison (==, !=, <, <=, >, >=), exists, contains, matches, count or is after \(context), found '\(word)'"
                + Suggestion.phrase(for: word, among: words)
            if Filter(rawValue: word) != nil { message += "; a filter follows a '|': | \(word)" }
            throw error(message)
        }
        let comparison = try parseComparison(
            after: context,
            expected: "a comparison (==, !=, <, <=, >, >=), exists, contains, matches, count or is")
        return .compare(comparison, try parseJSONLiteral())
    }

    /// `| FILTER [ARGUMENT]...`, one or more, after a value whose kind is
    /// `start` (`subject` says what it is, for a message).
    mutating func parseFilters(from start: FilterValueKind, subject: String) throws(ParseFailure) -> [FilterCall] {
        var calls: [(call: FilterCall, range: SourceRange)] = []
        while current.kind == .pipe {
            advance()
            guard current.kind == .identifier else {
                throw error("expected a filter name after '|' (\(FilterSyntax.names.joined(separator: ", "))), found \(found)")
            }
            let name = text(current)
            let nameRange = current.range
            advance()
            var arguments: [FilterSyntax.Written] = []
            while current.kind == .number || current.kind == .string || current.kind == .rawString {
                let token = current
                if token.kind == .number {
                    arguments.append(.number(text(token), token.range))
                    advance()
                } else {
                    arguments.append(.string(try parseLiteralString("a filter's argument"), token.range))
                }
            }
            do throws(FilterSyntax.Problem) {
                let filter = try FilterSyntax.filter(named: name, at: nameRange)
                let call = try FilterSyntax.call(filter, at: nameRange, arguments: arguments)
                calls.append((call, SourceRange(start: nameRange.start, end: arguments.last?.range.end ?? nameRange.end)))
            } catch {
                throw self.error(error.message, at: error.range, notes: error.notes)
            }
        }
        do throws(FilterSyntax.Problem) {
            try FilterSyntax.checkKinds(calls, from: start, subject: subject)
        } catch {
            throw self.error(error.message, at: error.range, notes: error.notes)
        }
        return calls.map(\.call)
    }

    /// `subject`, `issuer`, `start-date`, `expire-date`, `serial-number`.
    private mutating func parseCertificateField() throws(ParseFailure) -> CertificateField {
        let names = CertificateField.allCases.map(\.rawValue)
        guard current.kind == .identifier else {
            throw error("expected a certificate field after 'certificate' (\(names.joined(separator: ", "))), found \(found)")
        }
        let word = text(current)
        guard let field = CertificateField(rawValue: word) else {
            throw error(
                "unknown certificate field '\(word)'\(Suggestion.phrase(for: word, among: names))",
                notes: [.init("the fields are \(names.joined(separator: ", "))")])
        }
        advance()
        return field
    }

    /// Whether a predicate (`isUuid`, `not isIpv4`) comes next.
    private mutating func atValuePredicate() -> Bool {
        if valuePredicate != nil { return true }
        guard isKeyword("not") else { return false }
        let next = peekNext()
        return next.kind == .identifier && ValuePredicate(rawValue: text(next)) != nil
    }

    /// The predicate (`isUuid` ...) at the current token, if it is one.
    private var valuePredicate: ValuePredicate? {
        current.kind == .identifier ? ValuePredicate(rawValue: text(current)) : nil
    }

    /// `== T`, `!= T`, `[not] contains T`, `[not] matches RE`.
    private mutating func parseTextPredicate(after context: String, extra: [String] = []) throws(ParseFailure) -> TextPredicate {
        switch current.kind {
        case .equalEqual:
            advance()
            return TextPredicate(.equals(try parseTemplate("after '=='")))
        case .bangEqual:
            advance()
            return TextPredicate(.equals(try parseTemplate("after '!='")), negated: true)
        case .equal:
            throw error("'=' assigns; compare with '=='")
        default:
            break
        }
        var negated = false
        if isKeyword("not") {
            advance()
            negated = true
        }
        if isKeyword("contains") {
            advance()
            return TextPredicate(.contains(try parseTemplate("after 'contains'")), negated: negated)
        }
        if isKeyword("startsWith") {
            advance()
            return TextPredicate(.startsWith(try parseTemplate("after 'startsWith'")), negated: negated)
        }
        if isKeyword("endsWith") {
            advance()
            return TextPredicate(.endsWith(try parseTemplate("after 'endsWith'")), negated: negated)
        }
        if isKeyword("matches") {
            advance()
            return TextPredicate(.matches(try parseRegex()), negated: negated)
        }
        let words = LanguageTable.textPredicates.map(\.name) + extra + (negated ? [] : ["not"])
        if extra.isEmpty, isKeyword("count") || isKeyword("exists") || isKeyword("is") {
            throw error(
                "'\(text(current))' does not apply to \(context): it is text; '\(text(current))' is for headers and JSON values"
                    + " (write == \"...\", contains, or matches)")
        }
        if negated {
            throw error(
                "expected 'contains', 'startsWith', 'endsWith' or 'matches' after 'not', found \(found)"
                    + (current.kind == .equalEqual ? "; write '!=' for 'not =='" : ""))
        }
        let hint = current.kind == .identifier ? Suggestion.phrase(for: text(current), among: words) : ""
        let choices = (["==", "!="] + LanguageTable.textPredicates.map(\.name) + extra).map { "'\($0)'" }
        throw error("expected \(choices.dropLast().joined(separator: ", ")) or \(choices.last!) after \(context), found \(found)\(hint)")
    }

    /// `==`, `!=`, `<`, `<=`, `>`, `>=`.
    private mutating func parseComparison(
        after context: String,
        expected: String = "a comparison (==, !=, <, <=, >, >=)"
    ) throws(ParseFailure) -> ComparisonOperator {
        let comparison: ComparisonOperator
        switch current.kind {
        case .equalEqual: comparison = .equal
        case .bangEqual: comparison = .notEqual
        case .less: comparison = .less
        case .lessEqual: comparison = .lessOrEqual
        case .greater: comparison = .greater
        case .greaterEqual: comparison = .greaterOrEqual
        case .equal: throw error("'=' assigns; compare with '=='")
        default: throw error("expected \(expected) after \(context), found \(found)")
        }
        advance()
        return comparison
    }

    /// `200`, `2xx`, `200-299`.
    private mutating func parseStatusPattern() throws(ParseFailure) -> StatusPattern {
        guard current.kind == .number else {
            throw error("expected a status (such as 200, 2xx or 200-299), found \(found)")
        }
        let word = text(current)
        let bytes = Array(word.utf8)
        var pattern: StatusPattern?
        if let code = Int(word) {
            pattern = .code(code)
        } else if bytes.count == 3, Lexer.isDigit(bytes[0]), bytes[1] == UInt8(ascii: "x"), bytes[2] == UInt8(ascii: "x") {
            let hundreds = Int(bytes[0] - 0x30) * 100
            pattern = .range(hundreds...(hundreds + 99))
        } else {
            let pieces = word.split(separator: "-", omittingEmptySubsequences: false)
            if pieces.count == 2, let low = Int(pieces[0]), let high = Int(pieces[1]) {
                guard low <= high else {
                    throw error("the status range '\(word)' is empty; write the lower status first")
                }
                pattern = .range(low...high)
            }
        }
        guard let pattern else {
            throw error("invalid status '\(word)'; write a code (200), a class (2xx) or a range (200-299)")
        }
        let bounds: (Int, Int)
        switch pattern {
        case .code(let code): bounds = (code, code)
        case .range(let range): bounds = (range.lowerBound, range.upperBound)
        }
        guard bounds.0 >= 100, bounds.1 <= 599 else {
            throw error("HTTP statuses are from 100 to 599, not '\(word)'")
        }
        advance()
        return pattern
    }

    /// The value in `expect json PATH OP VALUE`.
    private mutating func parseJSONLiteral(depth: Int = 0) throws(ParseFailure) -> JSONLiteral {
        switch current.kind {
        case .leftBracket:
            // `[1, 2, "a"]`: a list, compared whole.
            guard depth < 32 else { throw error("lists nested too deeply") }
            advance()
            var items: [JSONLiteral] = []
            while current.kind == .newline { advance() }
            while current.kind != .rightBracket {
                items.append(try parseJSONLiteral(depth: depth + 1))
                while current.kind == .newline { advance() }
                if current.kind == .comma {
                    advance()
                    while current.kind == .newline { advance() }
                } else if current.kind != .rightBracket {
                    throw error("expected ',' or ']' in the list, found \(found)")
                }
            }
            advance()
            return .list(items)
        case .string, .rawString, .multilineString:
            return .string(try parseTemplate("to compare with"))
        case .number:
            let word = text(current)
            let digits = word.hasPrefix("-") ? word.dropFirst() : Substring(word)
            if !digits.isEmpty, digits.utf8.allSatisfy(Lexer.isDigit) {
                advance()
                // Any size: compared exactly, digit by digit.
                return .integer(word)
            }
            if word.utf8.allSatisfy({ Lexer.isDigit($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }),
                word.utf8.filter({ $0 == UInt8(ascii: ".") }).count == 1, let number = Double(word)
            {
                advance()
                return .number(number)
            }
            throw error("invalid number '\(word)'")
        case .identifier:
            let word = text(current)
            let literal: JSONLiteral
            switch word {
            case "true": literal = .boolean(true)
            case "false": literal = .boolean(false)
            case "null": literal = .null
            default:
                throw error("expected a value (a string, a number, true, false or null), found '\(word)'; quote a string: \"\(word)\"")
            }
            advance()
            return literal
        default:
            throw error("expected a value to compare with (a string, a number, true, false or null), found \(found)")
        }
    }

    /// After `capture`: `NAME = json PATH | header NAME | STREAM matches RE`.
    mutating func parseCapture(_ kind: String) throws(ParseFailure) -> Capture {
        let name = try expectIdentifier("a name after 'capture'")
        if TemplateParser.builtinFields[name.text] != nil || ["header", "json", "cookie", "timing"].contains(name.text) {
            throw error("a capture named '\(name.text)' would hide the step's field '\(name.text)'; choose another name", at: name.range)
        }
        _ = try expect(.equal, "after 'capture \(name.text)'")
        guard current.kind == .identifier else {
            throw error("expected where to capture from (json, header, stdout, stderr or body), found \(found)")
        }
        let source = text(current)
        let sourceRange = current.range
        let sources = LanguageTable.captureSources.map(\.name)
        guard sources.contains(source) else {
            throw error(
                "unknown capture source '\(source)'\(Suggestion.phrase(for: source, among: sources))",
                notes: [
                    .init(
                        "write capture NAME = json PATH, xpath EXPR, header NAME [matches 'RE'], cookie NAME, url, certificate FIELD, or stdout|stderr|body matches 'RE'"
                    )
                ])
        }
        try checkSubject(source, range: sourceRange, kind: kind, phrase: "capturing from \(source)")
        advance()
        var capture: Capture
        switch source {
        case "json":
            capture = Capture(name: name.text, source: .json(try parseJSONPath()))
        case "header":
            let header = try parseName("a header name")
            if isKeyword("matches") {
                advance()
                capture = Capture(name: name.text, source: .headerMatches(header, try parseRegex()))
            } else {
                capture = Capture(name: name.text, source: .header(header))
            }
        case "cookie":
            capture = Capture(name: name.text, source: .cookie(try parseName("a cookie name")))
        case "url":
            capture = Capture(name: name.text, source: .url)
        case "xpath":
            capture = Capture(name: name.text, source: .xpath(try parseLiteralString("an XPath expression")))
        case "certificate":
            capture = Capture(name: name.text, source: .certificate(try parseCertificateField()))
        default:
            guard isKeyword("matches") else {
                throw error(
                    "expected 'matches' after 'capture \(name.text) = \(source)', found \(found)"
                        + (current.kind == .pipe ? "; a filter follows the pattern: \(source) matches '(.*)' | ..." : ""))
            }
            advance()
            capture = Capture(name: name.text, source: .matches(StepExpectation.Stream(rawValue: source)!, try parseRegex()))
        }
        if current.kind == .pipe {
            switch capture.source {
            case .json: capture.filters = try parseFilters(from: .any, subject: "a JSON value")
            case .xpath: capture.filters = try parseFilters(from: .any, subject: "an XPath value")
            default:
                capture.filters = try parseFilters(from: .text, subject: "the captured \(source == "url" ? "URL" : source)")
            }
        }
        return capture
    }
}
