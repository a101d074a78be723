import Foundation
import JSON
import PromiseTestSupport
import Testing
import WorkflowTestSupport

@testable import PromiseEngine
@testable import WorkflowLanguage
@testable import WorkflowModel

@Suite("Templates")
struct TemplateParserTests {
    /// The template of the first string in `log STRING`.
    private func template(_ string: String) throws -> Template {
        let result = compile("var x = \"\"\nlog " + string)
        #expect(result.diagnostics.isEmpty, "\(result.renderedDiagnostics())")
        let workflow = try #require(result.workflow)
        guard case .log(let template)? = steps(workflow.body).first else {
            Issue.record("no log step")
            return Template(parts: [])
        }
        return template
    }

    private func errorsOf(_ string: String) -> [String] {
        messages("var x = \"\"\nlog " + string)
    }

    @Test func escapes() throws {
        #expect(try template(#""a\\b\"c\nd\te\rf\{{g""#).literalValue == "a\\b\"c\nd\te\rf{{g")
    }

    @Test func rawStringsAreLiteral() throws {
        #expect(try template(#"'a\n{{y}}'"#).literalValue == #"a\n{{y}}"#)
        // {{x}} names the declared var: a literal, with a warning (a trap).
        let result = compile("var x = \"\"\nlog 'a {{x}}'")
        #expect(result.workflow != nil)
        #expect(result.diagnostics.map(\.message) == ["'{{x}}' in a '...' string is not filled in: '...' strings are raw; write \"...\" to use it"])
    }

    @Test func interpolationSplitsLiteralsAndExpressions() throws {
        let parts = try template(#""a {{x}} b""#).parts
        #expect(parts.count == 3)
        #expect(parts[0] == .literal("a "))
        guard case .expression(let expression) = parts[1] else {
            Issue.record("not an expression")
            return
        }
        #expect(expression.reference == .variable("x"))
        #expect(parts[2] == .literal(" b"))
    }

    @Test func expressionRangeCoversTheBraces() throws {
        let text = "var x = \"\"\nlog \"a {{ x }}\""
        let workflow = try workflow(text)
        guard case .log(let template)? = steps(workflow.body).first,
            case .expression(let expression) = template.parts[1]
        else {
            Issue.record("no expression")
            return
        }
        let bytes = Array(text.utf8)
        #expect(String(decoding: bytes[expression.range.start..<expression.range.end], as: UTF8.self) == "{{ x }}")
        #expect(workflow.location(of: expression.range) == SourcePosition(line: 2, column: 8))
    }

    @Test func environmentWithDefaultHoldsATemplate() throws {
        let parts = try template(#""{{env.HOME ?? "/home/{{x}}"}}/bin""#).parts
        guard case .expression(let expression) = parts[0],
            case .environment("HOME", let fallback?) = expression.reference
        else {
            Issue.record("no env default")
            return
        }
        #expect(fallback.parts.count == 2)
        #expect(parts[1] == .literal("/bin"))
    }

    @Test func environmentDefaultMayBeRaw() throws {
        let parts = try template(#""{{env.A ?? '{{raw}}'}}""#).parts
        guard case .expression(let expression) = parts[0] else {
            Issue.record("no expression")
            return
        }
        #expect(expression.reference == .environment("A", default: .literal("{{raw}}")))
    }

    @Test func filtersInOrder() throws {
        guard case .expression(let expression) = try template(#""{{x | trim | shell|url}}""#).parts[0] else {
            Issue.record("no expression")
            return
        }
        #expect(expression.filters.map(\.filter) == [.trim, .shell, .url])
    }

    @Test func stepFields() throws {
        let workflow = try workflow(
            """
            a: sh "x"
            h: http GET "http://u"
            log "{{a.stdout}}{{a.exit}}{{h.header.Content-Type}}{{h.json.items[0].id}}{{h.json..items}}{{h.json}}{{h.json["odd key"]}}"
            """)
        guard case .log(let template)? = steps(workflow.body).last else {
            Issue.record("no log")
            return
        }
        let references = template.expressions.map(\.reference)
        #expect(
            references == [
                .step(label: "a", field: .stdout),
                .step(label: "a", field: .exit),
                .step(label: "h", field: .header("Content-Type")),
                .step(label: "h", field: .json(JSONPath([.key("items"), .index(0), .key("id")]))),
                .step(label: "h", field: .json(JSONPath([.key("items")]))),
                .step(label: "h", field: .json(JSONPath([]))),
                .step(label: "h", field: .json(JSONPath([.key("odd key")]))),
            ])
    }

    @Test func errorFieldsInsideCatch() throws {
        let workflow = try workflow(
            """
            fail "x"
            catch {
              log "{{error.message}}{{error.step}}{{error.kind}}{{error.exit}}"
            }
            """)
        guard case .catch(let clause) = workflow.body.statements[1], case .log(let template)? = steps(clause.body).first else {
            Issue.record("no catch")
            return
        }
        #expect(template.expressions.map(\.reference) == ErrorField.allCases.map { .error($0) })
    }

    @Test func multilineStringRemovesTheClosingIndentation() throws {
        let text = "log \"\"\"\n    first\n      second\n\n    third\n    \"\"\""
        let workflow = try workflow(text)
        guard case .log(let template)? = steps(workflow.body).first else {
            Issue.record("no log")
            return
        }
        #expect(template.literalValue == "first\n  second\n\nthird")
    }

    @Test func multilineStringJoinsLinesEndingInBackslash() throws {
        let workflow = try workflow("sh \"\"\"\n  make \\\n    all\n  \"\"\"")
        guard case .shell(let command, _)? = steps(workflow.body).first else {
            Issue.record("no sh")
            return
        }
        #expect(command.literalValue == "make   all")
    }

    @Test func multilineStringInterpolates() throws {
        let workflow = try workflow("var v = \"1\"\nlog \"\"\"\n  v={{v}}\n  \"\"\"")
        guard case .log(let template)? = steps(workflow.body).first else {
            Issue.record("no log")
            return
        }
        #expect(template.parts.count == 2)
    }

    @Test("filters with arguments: numbers, strings with escapes, raw strings, JSON paths")
    func filterArguments() throws {
        let template = try template(#""{{x | split "," | nth -1 | replace 'a' "b\n" | split "\"" | first | jsonpath "$.items[*]"}}""#)
        guard case .expression(let expression)? = template.parts.first else {
            Issue.record("no expression")
            return
        }
        #expect(expression.filters.map(\.filter) == [.split, .nth, .replace, .split, .first, .jsonpath])
        #expect(expression.filters[1].arguments == [.integer(-1)])
        #expect(expression.filters[2].arguments == [.text("a"), .text("b\n")])
        #expect(expression.filters[3].arguments == [.text("\"")])
        #expect(expression.sourceText == #"x | split "," | nth -1 | replace "a" "b\n" | split "\"" | first | jsonpath "$.items[*]""#)
    }

    @Test func errorsInsideExpressions() {
        #expect(errorsOf(#""{{ }}""#) == ["empty '{{ }}'; write a name inside, as in '{{build.stdout}}'"])
        #expect(errorsOf(#""{{x | loud}}""#) == ["unknown filter 'loud'"])
        #expect(errorsOf(#""{{x | trm}}""#) == ["unknown filter 'trm'; did you mean 'trim'?"])
        #expect(errorsOf(#""{{x | upper 2}}""#) == ["'upper' takes no argument (upper)"])
        #expect(errorsOf(#""{{x | nth}}""#) == ["'nth' needs an argument: nth N"])
        #expect(errorsOf(#""{{x | split "," | nth 0 | count}}""#) == [])
        #expect(errorsOf(#""{{x ?? "d"}}""#) == [#"'??' gives a default to an environment variable only, as in '{{env.NAME ?? "default"}}'"#])
        #expect(errorsOf(#""{{env}}""#) == ["expected '.NAME' after 'env', as in '{{env.HOME}}'"])
        #expect(errorsOf(#""{{error}}""#) == ["expected a field after 'error', as in '{{error.message}}'"])
        #expect(errorsOf(#""{{x y}}""#) == ["unexpected 'y' in '{{ }}'; expected '|' or '}}'"])
        #expect(errorsOf(#""{{x"#).count == 1)
        #expect(errorsOf(#""\q""#).first?.hasPrefix("invalid escape '\\q'") == true)
    }

    @Test func errorFieldMustExist() {
        #expect(
            messages("fail \"x\"\ncatch {\n  log \"{{error.mesage}}\"\n}") == [
                "unknown field 'mesage' of error; did you mean 'message'? (error has message, step, kind, exit)"
            ])
    }

    @Test func onlyHeaderAndJSONGoDeeper() {
        #expect(
            messages("a: sh \"x\"\nlog \"{{a.stdout.x}}\"") == [
                "unexpected '.' after 'a.stdout'; only header.NAME, cookie.NAME, timing.PHASE and json.PATH go deeper"
            ])
    }

    @Test func sourceTextRoundTrips() throws {
        let text = #"log "a\"b\\c {{env.X ?? "d"}} {{x | trim}} \{{lit""#
        let workflow = try workflow("var x = \"\"\n" + text)
        guard case .log(let template)? = steps(workflow.body).first else {
            Issue.record("no log")
            return
        }
        #expect("log \"" + template.sourceText + "\"" == text)
    }
}

/// Issue 20: `"""` strings parse in linear time (joining line by line
/// copied the text so far: 32,000 lines took 11 s).
@Suite("Templates at scale")
struct TemplateScaleTests {
    private func text(lines: Int) -> (String, String) {
        let body = (0..<lines).map { "line \($0) of a long text {{v}}" }
        let source = "var v = \"x\"\nlog \"\"\"\n" + body.map { "  " + $0 }.joined(separator: "\n") + "\n  \"\"\"\n"
        return (source, body.joined(separator: "\n"))
    }

    /// The CPU time this thread spends in `body`: what other threads and
    /// processes take of the machine meanwhile does not count.
    private func seconds(_ body: () throws -> Void) rethrows -> Double {
        func now() -> Double {
            var time = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
            return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
        }
        let start = now()
        try body()
        return now() - start
    }

    @Test func aLongMultilineStringIsWholeAndParsesInLinearTime() throws {
        let (large, expected) = text(lines: 32_000)
        let parsed = try workflow(large)
        let log = try #require(parsed.body.nodes.first { if case .step(.log) = $0.kind { return true } else { return false } })
        guard case .step(.log(let template)) = log.kind else { return }
        #expect(template.parts.count == 64_000)
        if case .literal(let first) = template.parts[0], case .literal(let third) = template.parts[2] {
            #expect(first == "line 0 of a long text ")
            #expect(third == "\nline 1 of a long text ")
        } else {
            Issue.record("the parts are not literal, expression, literal: \(template.parts.prefix(3))")
        }
        _ = expected
        // The shape, not a time: 8x the lines take at most ~24x the CPU
        // time (a quadratic parse takes 64x; the margin is for caches and
        // a loaded machine) (best of three each).
        let (small, _) = text(lines: 4_000)
        let smallTime = (0..<3).map { _ in seconds { _ = compile(small) } }.min()!
        let largeTime = (0..<3).map { _ in seconds { _ = compile(large) } }.min()!
        #expect(largeTime <= 24 * smallTime + 0.1, "4,000 lines: \(smallTime) s, 32,000 lines: \(largeTime) s")
    }
}
