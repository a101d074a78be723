import JSON
import PromiseEngine
import WorkflowModel

/// Turns a string token into a `Template`: escapes, `{{ ... }}`
/// expressions, and for `"""` strings the removal of the closing
/// delimiter's indentation. Works on the file's bytes; expressions keep
/// their byte ranges.
struct TemplateParser {
    let bytes: [UInt8]
    /// Deepest nesting of `{{ env.X ?? "{{ ... }}" }}`.
    static let maximumNesting = 8

    /// The template of a string token (`string`, `rawString` or
    /// `multilineString`).
    func parse(_ token: Token, _ diagnostics: inout DiagnosticBag) -> Template {
        switch token.kind {
        case .rawString:
            let end = closedEnd(token, quote: UInt8(ascii: "'"))
            return .literal(String(decoding: bytes[(token.start + 1)..<end], as: UTF8.self))
        case .multilineString:
            return parseMultiline(token, &diagnostics)
        default:
            let end = closedEnd(token, quote: UInt8(ascii: "\""))
            return Template(parts: parseContent(from: token.start + 1, to: end, depth: 0, &diagnostics))
        }
    }

    /// A word outside a string that holds `{{ }}`: a load shape's count,
    /// duration, limit or rate.
    func parseBare(_ token: Token, _ diagnostics: inout DiagnosticBag) -> Template {
        Template(parts: parseContent(from: token.start, to: token.end, depth: 0, &diagnostics))
    }

    /// The end of a string's content: before its closing quote, if it has one.
    private func closedEnd(_ token: Token, quote: UInt8) -> Int {
        let hasClosing = token.end - token.start >= 2 && bytes[token.end - 1] == quote
        return max(token.start + 1, hasClosing ? token.end - 1 : token.end)
    }

    // MARK: - Multi-line strings

    private func parseMultiline(_ token: Token, _ diagnostics: inout DiagnosticBag) -> Template {
        // Lines between the opening line and the closing delimiter's line.
        // Lines break at LF, CRLF or CR (`LineBreaks`); the value's breaks are LF.
        let position = LineBreaks.line(from: token.start + 3, in: bytes).next
        guard position < token.end,
            token.end - token.start >= 6,
            bytes[token.end - 1] == UInt8(ascii: "\""), bytes[token.end - 2] == UInt8(ascii: "\""), bytes[token.end - 3] == UInt8(ascii: "\"")
        else { return Template(parts: []) }
        let closingQuotes = token.end - 3
        var closingLineStart = closingQuotes
        while closingLineStart > position, bytes[closingLineStart - 1] != 0x0A, bytes[closingLineStart - 1] != 0x0D { closingLineStart -= 1 }
        let indentation = bytes[closingLineStart..<closingQuotes]
        // Literal text gathers in one byte buffer until an expression comes:
        // joining strings line by line copied the text so far each time
        // (quadratic in the lines).
        var parts: [TemplatePart] = []
        var literal: [UInt8] = []
        func flush() {
            if !literal.isEmpty {
                parts.append(.literal(String(decoding: literal, as: UTF8.self)))
                literal.removeAll(keepingCapacity: true)
            }
        }
        var lineStart = position
        var first = true
        var joinWithPrevious = false
        while lineStart < closingLineStart {
            let (lineEnd, nextLine) = LineBreaks.line(from: lineStart, in: bytes)
            var contentEnd = min(lineEnd, closingLineStart)
            if !first, !joinWithPrevious { literal.append(0x0A) }
            first = false
            // A line ending in an unescaped `\` continues on the next line
            // (as in Swift, and as a shell reads it).
            var backslashes = 0
            while contentEnd - backslashes > lineStart, bytes[contentEnd - backslashes - 1] == UInt8(ascii: "\\") { backslashes += 1 }
            joinWithPrevious = backslashes % 2 == 1
            if joinWithPrevious { contentEnd -= 1 }
            let line = bytes[lineStart..<contentEnd]
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) {
                // A blank line needs no indentation.
            } else if line.starts(with: indentation) {
                for part in parseContent(from: lineStart + indentation.count, to: contentEnd, depth: 0, &diagnostics) {
                    if case .literal(let text) = part {
                        literal += text.utf8
                    } else {
                        flush()
                        parts.append(part)
                    }
                }
            } else {
                diagnostics.error(
                    "this line of a multi-line string is indented less than its closing '\"\"\"'",
                    at: SourceRange(start: lineStart, end: contentEnd),
                    notes: [.init("the closing delimiter is here", at: SourceRange(start: closingQuotes, end: closingQuotes + 3))])
            }
            lineStart = nextLine
        }
        flush()
        return Template(parts: parts)
    }

    // MARK: - Escapes and interpolation

    /// Parses `bytes[from..<to]`, the inside of a `"..."` string.
    func parseContent(from: Int, to: Int, depth: Int, _ diagnostics: inout DiagnosticBag) -> [TemplatePart] {
        var parts: [TemplatePart] = []
        var literal: [UInt8] = []
        var position = from
        func flush() {
            if !literal.isEmpty {
                parts.append(.literal(String(decoding: literal, as: UTF8.self)))
                literal.removeAll(keepingCapacity: true)
            }
        }
        while position < to {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\\") {
                guard position + 1 < to else {
                    diagnostics.error("a '\\' at the end of a string escapes nothing", at: SourceRange(start: position, end: position + 1))
                    break
                }
                let escaped = bytes[position + 1]
                switch escaped {
                case UInt8(ascii: "\\"), UInt8(ascii: "\""), UInt8(ascii: "{"): literal.append(escaped)
                case UInt8(ascii: "n"): literal.append(0x0A)
                case UInt8(ascii: "t"): literal.append(0x09)
                case UInt8(ascii: "r"): literal.append(0x0D)
                default:
                    var end = position + 2
                    while end < to, bytes[end] & 0xC0 == 0x80 { end += 1 }
                    let shown = String(decoding: bytes[(position + 1)..<end], as: UTF8.self)
                    diagnostics.error(
                        "invalid escape '\\\(shown)' in string; the escapes are \\\\ \\\" \\n \\t \\r \\{",
                        at: SourceRange(start: position, end: end),
                        notes: [.init("for regular expressions and shell scripts, a '...' string takes backslashes as they are")])
                    literal.append(contentsOf: bytes[position..<end])
                    position = end
                    continue
                }
                position += 2
            } else if byte == UInt8(ascii: "{"), position + 1 < to, bytes[position + 1] == UInt8(ascii: "{") {
                flush()
                let (expression, end) = parseExpression(openAt: position, to: to, depth: depth, &diagnostics)
                if let expression { parts.append(.expression(expression)) }
                position = end
            } else {
                literal.append(byte)
                position += 1
            }
        }
        flush()
        return parts
    }

    // MARK: - Expressions

    /// Parses `{{ reference [?? "default"] [| filter]... }}` starting at the
    /// `{{` at `open`. Returns the expression (nil after an error) and the
    /// offset after `}}`.
    private func parseExpression(openAt open: Int, to: Int, depth: Int, _ diagnostics: inout DiagnosticBag) -> (TemplateExpression?, Int) {
        var scanner = ExpressionScanner(bytes: bytes, position: open + 2, end: to)
        func fail(_ message: String, at range: SourceRange, notes: [Diagnostic.Note] = []) -> (TemplateExpression?, Int) {
            diagnostics.error(message, at: range, notes: notes)
            return (nil, scanner.endOfExpression())
        }
        scanner.skipSpaces()
        let headStart = scanner.position
        guard let head = scanner.identifier() else {
            if scanner.atClose {
                return fail("empty '{{ }}'; write a name inside, as in '{{build.stdout}}'", at: SourceRange(start: open, end: scanner.position + 2))
            }
            return fail("expected a name after '{{'", at: scanner.rangeOfCurrentCharacter())
        }
        var reference: Reference
        if scanner.consume(UInt8(ascii: ".")) {
            let fieldStart = scanner.position
            switch head {
            case "env":
                guard let name = scanner.identifier() else {
                    return fail("expected the name of an environment variable after 'env.'", at: scanner.rangeOfCurrentCharacter())
                }
                reference = .environment(name, default: nil)
            case "repeat" where scanner.peek(word: "index"):
                _ = scanner.identifier()
                reference = .variable(Parser.repeatIndex)
            case "error":
                guard let name = scanner.identifier() else {
                    return fail("expected a field after 'error.' (message, step, kind or exit)", at: scanner.rangeOfCurrentCharacter())
                }
                guard let field = ErrorField(rawValue: name) else {
                    let names = ErrorField.allCases.map(\.rawValue)
                    return fail(
                        "unknown field '\(name)' of error\(Suggestion.phrase(for: name, among: names)) (error has message, step, kind, exit)",
                        at: SourceRange(start: fieldStart, end: scanner.position))
                }
                reference = .error(field)
            default:
                guard let name = scanner.identifier() else {
                    return fail("expected a field after '\(head).'", at: scanner.rangeOfCurrentCharacter())
                }
                let field: StepField
                switch name {
                case "header":
                    guard scanner.consume(UInt8(ascii: ".")), let header = scanner.word() else {
                        return fail(
                            "expected a header name after 'header.', as in '\(head).header.Content-Type'", at: scanner.rangeOfCurrentCharacter())
                    }
                    field = .header(header)
                case "cookie" where scanner.peek == UInt8(ascii: "."):
                    guard scanner.consume(UInt8(ascii: ".")), let cookie = scanner.word() else {
                        return fail("expected a cookie name after 'cookie.', as in '\(head).cookie.session'", at: scanner.rangeOfCurrentCharacter())
                    }
                    field = .cookie(cookie)
                case "timing" where scanner.peek == UInt8(ascii: "."):
                    let phases = HTTPTimingPhase.allCases.map(\.rawValue)
                    guard scanner.consume(UInt8(ascii: ".")) else {
                        return fail(
                            "expected a phase after 'timing.' (\(phases.joined(separator: ", "))), as in '\(head).timing.total'",
                            at: scanner.rangeOfCurrentCharacter())
                    }
                    let phaseStart = scanner.position
                    guard let phaseName = scanner.identifier(), let phase = HTTPTimingPhase(rawValue: phaseName) else {
                        let written = String(decoding: bytes[phaseStart..<max(phaseStart, scanner.position)], as: UTF8.self)
                        return fail(
                            "unknown timing phase '\(written)'\(Suggestion.phrase(for: written, among: phases)) (timing has \(phases.joined(separator: ", ")))",
                            at: SourceRange(start: phaseStart, end: max(phaseStart + 1, scanner.position)))
                    }
                    field = .timing(phase)
                case "json":
                    if scanner.peek == UInt8(ascii: "."), let after = scanner.peek(1),
                        after == UInt8(ascii: ".") || after == UInt8(ascii: "[")
                    {
                        scanner.position += 1
                    }
                    if scanner.peek == UInt8(ascii: ".") || scanner.peek == UInt8(ascii: "[") {
                        do {
                            let (path, end) = try JSONPath.parse(bytes, from: scanner.position, to: to)
                            scanner.position = end
                            field = .json(path)
                        } catch {
                            return fail(error.message, at: SourceRange(start: error.offset, end: min(to, error.offset + 1)))
                        }
                    } else {
                        field = .json(JSONPath([]))
                    }
                default:
                    field = TemplateParser.builtinFields[name] ?? TemplateParser.httpFields[name] ?? .capture(name)
                }
                reference = .step(label: head, field: field)
                if let next = scanner.peek, next == UInt8(ascii: ".") || next == UInt8(ascii: "[") {
                    return fail(
                        "unexpected '\(Character(Unicode.Scalar(next)))' after '\(head).\(field.name)'; only header.NAME, cookie.NAME, timing.PHASE and json.PATH go deeper",
                        at: scanner.rangeOfCurrentCharacter())
                }
            }
        } else {
            switch head {
            case "env":
                return fail("expected '.NAME' after 'env', as in '{{env.HOME}}'", at: SourceRange(start: headStart, end: scanner.position))
            case "error":
                return fail("expected a field after 'error', as in '{{error.message}}'", at: SourceRange(start: headStart, end: scanner.position))
            default:
                reference = TemplateFunction(rawValue: head).map { .function($0) } ?? .variable(head)
            }
        }
        scanner.skipSpaces()
        if scanner.consume(UInt8(ascii: "?"), UInt8(ascii: "?")) {
            let operatorRange = SourceRange(start: scanner.position - 2, end: scanner.position)
            guard case .environment(let name, nil) = reference else {
                return fail("'??' gives a default to an environment variable only, as in '{{env.NAME ?? \"default\"}}'", at: operatorRange)
            }
            scanner.skipSpaces()
            let quote = scanner.peek
            if quote == UInt8(ascii: "'") {
                guard let close = scanner.endOfRawString() else {
                    return fail("unterminated default string", at: scanner.rangeOfCurrentCharacter())
                }
                let text = String(decoding: bytes[(scanner.position + 1)..<close], as: UTF8.self)
                reference = .environment(name, default: .literal(text))
                scanner.position = close + 1
            } else if quote == UInt8(ascii: "\"") {
                guard depth + 1 < TemplateParser.maximumNesting else {
                    return fail("interpolation nested too deeply (limit \(TemplateParser.maximumNesting))", at: scanner.rangeOfCurrentCharacter())
                }
                guard let close = scanner.endOfString() else {
                    return fail("unterminated default string", at: scanner.rangeOfCurrentCharacter())
                }
                let parts = parseContent(from: scanner.position + 1, to: close, depth: depth + 1, &diagnostics)
                reference = .environment(name, default: Template(parts: parts))
                scanner.position = close + 1
            } else {
                return fail("expected a string after '??'", at: scanner.rangeOfCurrentCharacter())
            }
            scanner.skipSpaces()
        }
        var filters: [(call: FilterCall, range: SourceRange)] = []
        while scanner.consume(UInt8(ascii: "|")) {
            scanner.skipSpaces()
            let filterStart = scanner.position
            guard let name = scanner.identifier() else {
                return fail(
                    "expected a filter name after '|' (\(FilterSyntax.names.prefix(4).joined(separator: ", ")) ...)",
                    at: scanner.rangeOfCurrentCharacter())
            }
            let nameRange = SourceRange(start: filterStart, end: scanner.position)
            do throws(FilterSyntax.Problem) {
                let filter = try FilterSyntax.filter(named: name, at: nameRange)
                var arguments: [FilterSyntax.Written] = []
                while true {
                    scanner.skipSpaces()
                    guard let argument = try filterArgument(&scanner) else { break }
                    arguments.append(argument)
                }
                let call = try FilterSyntax.call(filter, at: nameRange, arguments: arguments)
                filters.append((call, SourceRange(start: filterStart, end: arguments.last?.range.end ?? nameRange.end)))
            } catch {
                return fail(error.message, at: error.range, notes: error.notes)
            }
            scanner.skipSpaces()
        }
        if !filters.isEmpty {
            let subject: String
            let kind: FilterValueKind
            switch reference {
            case .step(let label, let field):
                subject = "'\(label).\(field.name)'"
                kind = FilterSyntax.kind(of: field)
            case .variable(let name):
                subject = "'\(name)'"
                kind = .text
            case .environment(let name, _):
                subject = "'env.\(name)'"
                kind = .text
            case .error(let field):
                subject = "'error.\(field.rawValue)'"
                kind = .text
            case .function(let function):
                subject = "'\(function.rawValue)'"
                kind = .text
            }
            do throws(FilterSyntax.Problem) {
                try FilterSyntax.checkKinds(filters, from: kind, subject: subject)
            } catch {
                return fail(error.message, at: error.range, notes: error.notes)
            }
        }
        guard scanner.atClose else {
            if scanner.position >= to {
                return fail("expected '}}' to close '{{'", at: SourceRange(start: open, end: open + 2))
            }
            return fail("unexpected '\(scanner.currentCharacter)' in '{{ }}'; expected '|' or '}}'", at: scanner.rangeOfCurrentCharacter())
        }
        let end = scanner.position + 2
        return (TemplateExpression(reference: reference, filters: filters.map(\.call), range: SourceRange(start: open, end: end)), end)
    }

    /// A filter's argument at the scanner: `"text"`, `'text'` or a number;
    /// nil when none comes.
    private func filterArgument(_ scanner: inout ExpressionScanner) throws(FilterSyntax.Problem) -> FilterSyntax.Written? {
        guard let byte = scanner.peek else { return nil }
        let start = scanner.position
        if byte == UInt8(ascii: "'") {
            guard let close = scanner.endOfRawString() else {
                throw FilterSyntax.Problem(message: "unterminated string", range: scanner.rangeOfCurrentCharacter())
            }
            scanner.position = close + 1
            return .string(String(decoding: bytes[(start + 1)..<close], as: UTF8.self), SourceRange(start: start, end: close + 1))
        }
        if byte == UInt8(ascii: "\"") {
            guard let close = scanner.endOfString() else {
                throw FilterSyntax.Problem(message: "unterminated string", range: scanner.rangeOfCurrentCharacter())
            }
            scanner.position = close + 1
            var text: [UInt8] = []
            var index = start + 1
            while index < close {
                var next = bytes[index]
                if next == UInt8(ascii: "\\"), index + 1 < close {
                    index += 1
                    switch bytes[index] {
                    case UInt8(ascii: "n"): next = 0x0A
                    case UInt8(ascii: "t"): next = 0x09
                    case UInt8(ascii: "r"): next = 0x0D
                    default: next = bytes[index]
                    }
                }
                text.append(next)
                index += 1
            }
            return .string(String(decoding: text, as: UTF8.self), SourceRange(start: start, end: close + 1))
        }
        if Lexer.isDigit(byte) || (byte == UInt8(ascii: "-") && scanner.peek(1).map(Lexer.isDigit) == true) {
            scanner.position += 1
            while let next = scanner.peek, Lexer.isDigit(next) || Lexer.isIdentifierContinue(next) || next == UInt8(ascii: ".") {
                scanner.position += 1
            }
            return .number(String(decoding: bytes[start..<scanner.position], as: UTF8.self), SourceRange(start: start, end: scanner.position))
        }
        return nil
    }

    static let builtinFields: [String: StepField] = [
        "stdout": .stdout, "stderr": .stderr, "exit": .exit, "duration": .duration,
        "status": .status, "body": .body, "path": .path, "content": .content,
    ]

    /// Fields of http steps added after the first ones. A capture of the same
    /// name (written before they existed) takes their place.
    static let httpFields: [String: StepField] = ["url": .url, "redirects": .redirects, "version": .version]
}
