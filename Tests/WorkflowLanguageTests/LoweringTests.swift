import Foundation
import PromiseTestSupport
import Testing
import WorkflowTestSupport

@testable import PromiseEngine
@testable import WorkflowLanguage
@testable import WorkflowModel

@Suite("Lowering")
struct LoweringTests {
    @Test func statementsKeepTheirOrderAndPlaces() throws {
        let workflow = try workflow(
            """
            var top = "1"
            env A = "x"
            a: sh "one"
            sequence {
              var inner = "2"
              b: sh "{{inner}}"
            }
            catch exit {
              log "c"
            }
            ensure {
              log "e"
            }
            secret late = "3"
            """)
        #expect(workflow.variables.map(\.name) == ["top", "late"])
        let statements = workflow.body.statements
        #expect(statements.count == 5)
        #expect(statements[0] == .environment(EnvironmentSetting(name: "A", value: .literal("x"))))
        guard case .node(let a) = statements[1], case .node(let sequence) = statements[2],
            case .catch(let clause) = statements[3], case .ensure(let ensure) = statements[4]
        else {
            Issue.record("unexpected statements \(statements)")
            return
        }
        #expect(a.location == SourcePosition(line: 3, column: 1))
        #expect(sequence.id == "sequence@4:1")
        guard case .group(.sequence(let block)) = sequence.kind else {
            Issue.record("not a sequence")
            return
        }
        #expect(
            block.statements.first
                == .variable(
                    VariableDeclaration(
                        name: "inner", value: .literal("2"), isSecret: false,
                        location: SourcePosition(line: 5, column: 7))))
        #expect(clause.kinds == [.exit])
        #expect(clause.location == SourcePosition(line: 8, column: 1))
        #expect(ensure.nodes.map(\.id) == ["log@12:3"])
    }

    @Test func lanesKeepTheirDeclarations() throws {
        let workflow = try workflow("race {\n  env E = \"1\"\n  var v = \"2\"\n  a: log \"{{v}}\"\n}")
        guard case .group(.race(let lanes))? = workflow.body.nodes.first?.kind else {
            Issue.record("not a race")
            return
        }
        #expect(lanes.environment.map(\.name) == ["E"])
        #expect(lanes.variables.map(\.name) == ["v"])
        #expect(lanes.children.map(\.id) == ["a"])
    }

    @Test func allNodesIsDepthFirstInSourceOrder() throws {
        let workflow = try workflow(
            """
            a: sh "x"
            parallel {
              b: sh "y"
              c: sequence { d: sh "z" }
            }
            catch { e: log "x" }
            if "1" == "1" { f: log "t" } else { g: log "e" }
            """)
        #expect(workflow.allNodes.map(\.id) == ["a", "parallel@2:1", "b", "c", "d", "e", "if@7:1", "f", "g"])
    }

    @Test func displayNames() throws {
        let workflow = try workflow(
            """
            sh "make all"
            http GET "http://127.0.0.1/{{x}}"
            parallel { log "a" }
            sh \"\"\"
              first line
              second line
              \"\"\"
            file write "a/very/long/path/that/goes/on/and/on/and/on/forever.txt" "x"
            """.replacingOccurrences(of: "{{x}}", with: "x"))
        #expect(
            workflow.allNodes.map(\.displayName) == [
                "sh make all", "http GET http://127.0.0.1/x", "parallel", "log a", "sh first line…",
                "file write a/very/long/path/that/goes/on/and/on…",
            ])
    }
}

@Suite("Model values")
struct ModelValueTests {
    @Test func templatesCompareByParts() {
        #expect(Template(parts: [.literal("a")]) == .literal("a"))
        #expect(Template(parts: []) == .literal(""))
        #expect(Template.literal("").parts.isEmpty)
        #expect(Template.literal("a").literalValue == "a")
        let expression = TemplateExpression(reference: .variable("x"), range: SourceRange(start: 0, end: 5))
        let template = Template(parts: [.literal("a"), .expression(expression)])
        #expect(template.literalValue == nil)
        #expect(template.parts.count == 2)
        #expect(template.expressions == [expression])
    }

    @Test func attributesStoreNothingWhenEmpty() {
        var attributes = Attributes()
        #expect(attributes.isEmpty)
        attributes.timeout = .seconds(1)
        attributes.needs = ["a"]
        #expect(!attributes.isEmpty)
        #expect(attributes == Attributes(timeout: .seconds(1), needs: ["a"]))
        let copy = attributes
        attributes.timeout = nil
        #expect(copy.timeout == .seconds(1))
        attributes.needs = []
        #expect(attributes.isEmpty)
        #expect(attributes == Attributes())
    }

    @Test func sourceRangesClampAndExtend() {
        #expect(SourceRange(start: 5, end: 2).end == 5)
        #expect(SourceRange(start: 1, end: 3).extended(to: SourceRange(start: 7, end: 9)) == SourceRange(start: 1, end: 9))
        #expect(SourceRange(start: -4, end: 0).start == 0)
    }

    @Test func statusPatterns() {
        #expect(StatusPattern.range(200...299).matches(204))
        #expect(!StatusPattern.code(200).matches(201))
        #expect(StatusPattern.range(200...299).description == "2xx")
        #expect(StatusPattern.range(200...204).description == "200-204")
    }

    @Test func runTimeErrorsPointAtTheExpression() throws {
        let workflow = try workflow("log \"home: {{env.HOME_DIR}}\"", path: "w.workflow")
        guard case .log(let message)? = steps(workflow.body).first, let expression = message.expressions.first else {
            Issue.record("no expression")
            return
        }
        #expect(
            workflow.renderedError("environment variable 'HOME_DIR' is not set", at: expression.range) == """
                w.workflow:1:12: error: environment variable 'HOME_DIR' is not set
                log "home: {{env.HOME_DIR}}"
                           ^~~~~~~~~~~~~~~~

                """)
    }
}
