import PromiseEngine
import WorkflowModel

// `expect ...` and `capture NAME = ...` in a step's block (spec §6).

extension Parser {
    static let expectationSubjects = LanguageTable.expectationSubjects.map(\.name)

    /// Which step kinds an expectation or capture subject applies to.
    private static func subjectKinds(_ subject: String) -> [String] {
        switch subject {
        case "exit", "stdout", "stderr": return ["sh", "exec"]
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
            throw error("'expect \(subject)' is a threshold of a group, checked when the group ends; write it in the block of the group "
                        + "around this step (repeat, foreach, parallel, sequence), as in 'repeat 100 { expect \(subject) ... }'")
        }
        guard Parser.expectationSubjects.contains(subject) else {
            throw error("unknown expectation '\(subject)'\(Suggestion.phrase(for: subject, among: Parser.expectationSubjects))",
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
        case "sha256":
            let negated = current.kind == .bangEqual
            guard current.kind == .equalEqual || negated else {
                throw error("expected '==' or '!=' after 'expect sha256', found \(found)")
            }
            advance()
            let token = current
            let hex = try parseLiteralString("the body's SHA-256 in hex")
            guard hex.utf8.count == 64, hex.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
                throw error("a SHA-256 is 64 lower-case hex digits, not \(hex.utf8.count == 64 ? "'\(hex)'" : "\(hex.utf8.count) characters")",
                            at: token.range)
            }
            return .sha256(hex, negated: negated)
        case "bytes":
            guard isKeyword("count") else { throw error("expected 'count' after 'expect bytes' (expect bytes count == N), found \(found)") }
            advance()
            let op = try parseComparison(after: "'bytes count'")
            return .bytes(op, try parseInteger("a size in bytes", range: 0...Int(Int32.max)))
        case "stdout", "stderr", "body":
            let stream = StepExpectation.Stream(rawValue: subject)!
            return .text(stream, try parseTextPredicate(after: "'expect \(subject)'"))
        case "header":
            let name = try parseName("a header name")
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
            var negated = false
            if isKeyword("not") {
                advance()
                negated = true
                guard isKeyword("exists") || isKeyword("contains") || isKeyword("matches") || valuePredicate != nil else {
                    throw error("expected 'exists', 'contains', 'matches' or a predicate (isUuid ...) after 'not', found \(found)"
                                + (current.kind == .equalEqual ? "; write '!=' for 'not =='" : ""))
                }
            }
            if isKeyword("exists") {
                advance()
                return .json(path, .exists(negated: negated))
            }
            if let predicate = valuePredicate {
                advance()
                return .json(path, .predicate(predicate, negated: negated))
            }
            if isKeyword("contains") {
                advance()
                // `contains 2`, `contains true`: an element written so (as a
                // quoted "2" also finds, by the text of the element).
                if current.kind == .number || (current.kind == .identifier && ["true", "false", "null"].contains(text(current))) {
                    let word = text(current)
                    advance()
                    return .json(path, .contains(.literal(word), negated: negated))
                }
                return .json(path, .contains(try parseTemplate("after 'contains'"), negated: negated))
            }
            if isKeyword("matches") {
                advance()
                return .json(path, .matches(try parseRegex(), negated: negated))
            }
            if isKeyword("count") {
                advance()
                let op = try parseComparison(after: "'count'")
                return .json(path, .count(op, try parseInteger("a count", range: 0...Int(Int32.max))))
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
                    throw error("unknown JSON type '\(word)'\(Suggestion.phrase(for: word, among: names))",
                                notes: [.init("the types are \(names.joined(separator: ", "))")])
                }
                advance()
                return .json(path, .isType(type, negated: negatedType))
            }
            if current.kind == .identifier {
                let word = text(current)
                let words = ["exists", "contains", "matches", "count", "is", "not"] + LanguageTable.valuePredicates.map(\.name)
                throw error("expected a comparison (==, !=, <, <=, >, >=), exists, contains, matches, count or is after the JSON path, found '\(word)'"
                            + Suggestion.phrase(for: word, among: words))
            }
            let comparison = try parseComparison(after: "the JSON path",
                                                 expected: "a comparison (==, !=, <, <=, >, >=), exists, contains, matches, count or is")
            return .json(path, .compare(comparison, try parseJSONLiteral()))
        }
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
            throw error("'\(text(current))' does not apply to \(context): it is text; '\(text(current))' is for headers and JSON values"
                        + " (write == \"...\", contains, or matches)")
        }
        if negated {
            throw error("expected 'contains', 'startsWith', 'endsWith' or 'matches' after 'not', found \(found)"
                        + (current.kind == .equalEqual ? "; write '!=' for 'not =='" : ""))
        }
        let hint = current.kind == .identifier ? Suggestion.phrase(for: text(current), among: words) : ""
        let choices = (["==", "!="] + LanguageTable.textPredicates.map(\.name) + extra).map { "'\($0)'" }
        throw error("expected \(choices.dropLast().joined(separator: ", ")) or \(choices.last!) after \(context), found \(found)\(hint)")
    }

    /// `==`, `!=`, `<`, `<=`, `>`, `>=`.
    private mutating func parseComparison(after context: String,
                                          expected: String = "a comparison (==, !=, <, <=, >, >=)") throws(ParseFailure) -> ComparisonOperator {
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
    private mutating func parseJSONLiteral() throws(ParseFailure) -> JSONLiteral {
        switch current.kind {
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
               word.utf8.filter({ $0 == UInt8(ascii: ".") }).count == 1, let number = Double(word) {
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
            throw error("unknown capture source '\(source)'\(Suggestion.phrase(for: source, among: sources))",
                        notes: [.init("write capture NAME = json PATH, header NAME [matches 'RE'], cookie NAME, url, or stdout|stderr|body matches 'RE'")])
        }
        try checkSubject(source, range: sourceRange, kind: kind, phrase: "capturing from \(source)")
        advance()
        switch source {
        case "json":
            return Capture(name: name.text, source: .json(try parseJSONPath()))
        case "header":
            let header = try parseName("a header name")
            if isKeyword("matches") {
                advance()
                return Capture(name: name.text, source: .headerMatches(header, try parseRegex()))
            }
            return Capture(name: name.text, source: .header(header))
        case "cookie":
            return Capture(name: name.text, source: .cookie(try parseName("a cookie name")))
        case "url":
            return Capture(name: name.text, source: .url)
        default:
            guard isKeyword("matches") else {
                throw error("expected 'matches' after 'capture \(name.text) = \(source)', found \(found)")
            }
            advance()
            return Capture(name: name.text, source: .matches(StepExpectation.Stream(rawValue: source)!, try parseRegex()))
        }
    }
}
