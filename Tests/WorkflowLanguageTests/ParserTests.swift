import JSON
import PromiseTestSupport
import Testing
import WorkflowTestSupport

@testable import PromiseEngine
@testable import WorkflowLanguage
@testable import WorkflowModel
@testable import WorkflowRun

@Suite("Parser")
struct ParserTests {
    @Test func stepsWithLabelsAndAttributes() throws {
        let workflow = try workflow(
            """
            build: sh "make" {
              timeout 10m
              retry 2 delay 1s
              cwd "sub"
              env A = "1"
              stdin "in"
              expect exit 0 2
              capture v = stdout matches 'v(.*)'
            }
            """)
        let node = try #require(workflow.body.nodes.first)
        #expect(node.label == "build")
        #expect(node.id == "build")
        #expect(node.location == SourcePosition(line: 1, column: 1))
        #expect(node.attributes.timeout == .seconds(600))
        #expect(node.attributes.retry == RetryPolicy(count: 2, delay: .seconds(1)))
        #expect(node.attributes.cwd == .literal("sub"))
        #expect(node.attributes.environment == [EnvironmentSetting(name: "A", value: .literal("1"))])
        guard case .step(.shell(let command, let process)) = node.kind else {
            Issue.record("not sh")
            return
        }
        #expect(command == .literal("make"))
        #expect(process.stdin == .literal("in"))
        #expect(process.expectations == [.exit([0, 2])])
        #expect(process.captures == [Capture(name: "v", source: .matches(.stdout, RegexPattern("v(.*)")))])
    }

    @Test func httpRequest() throws {
        let workflow = try workflow(
            """
            api: http POST "http://127.0.0.1/x" {
              header "Accept" "json"
              header X-Id "1"
              form a "1"
              form b "2"
              redirects 0
              save "out"
              expect status 200 2xx 300-302
              expect header "Content-Type" matches 'json'
              expect json ".a[0]" <= -3
              expect json ".b" == 1.5
              expect json ".c" != "x"
              expect json ".d" == null
              capture etag = header "ETag"
              capture token = json ".token"
            }
            """)
        guard case .step(.http(let request))? = workflow.body.nodes.first?.kind else {
            Issue.record("not http")
            return
        }
        #expect(request.method == .POST)
        #expect(request.headers.map(\.name.literalValue) == ["Accept", "X-Id"])
        #expect(request.body == .form([NamedTemplate(name: "a", value: .literal("1")), NamedTemplate(name: "b", value: .literal("2"))]))
        #expect(request.redirects == 0)
        #expect(request.save == .literal("out"))
        #expect(
            request.expectations == [
                .status([.code(200), .range(200...299), .range(300...302)]),
                .header(name: "Content-Type", .text(TextPredicate(.matches(RegexPattern("json"))))),
                .json(JSONPath([.key("a"), .index(0)]), .compare(.lessOrEqual, .integer("-3"))),
                .json(JSONPath([.key("b")]), .compare(.equal, .number(1.5))),
                .json(JSONPath([.key("c")]), .compare(.notEqual, .string(.literal("x")))),
                .json(JSONPath([.key("d")]), .compare(.equal, .null)),
            ])
        #expect(request.captures.map(\.name) == ["etag", "token"])
    }

    @Test func fileOperations() throws {
        let workflow = try workflow(
            """
            file write "a" "b"; file append "a" "c"; file read "a"; file copy "a" "b"
            file move "b" "c"; file delete "c"; file mkdir "d"; file exists "a"
            """)
        #expect(
            steps(workflow.body) == [
                .file(.write(path: .literal("a"), content: .literal("b"))),
                .file(.append(path: .literal("a"), content: .literal("c"))),
                .file(.read(path: .literal("a"))),
                .file(.copy(from: .literal("a"), to: .literal("b"))),
                .file(.move(from: .literal("b"), to: .literal("c"))),
                .file(.delete(path: .literal("c"))),
                .file(.mkdir(path: .literal("d"))),
                .file(.exists(path: .literal("a"))),
            ])
    }

    @Test func execSleepLogFail() throws {
        let workflow = try workflow("exec \"ls\" \"-l\"\nsleep 1m30s\nlog 'hi'\nfail \"no\"")
        #expect(
            steps(workflow.body) == [
                .exec(arguments: [.literal("ls"), .literal("-l")], process: ProcessOptions()),
                .sleep(.seconds(90)),
                .log(.literal("hi")),
                .fail(.literal("no")),
            ])
    }

    @Test func groupsAndTheirOptions() throws {
        let workflow = try workflow(
            """
            parallel limit 3 keep-going {
              timeout 1m
              a: log "a"
              b: log "b" { needs a }
            }
            race { log "r" }
            any { log "y" }
            foreach x in ["1", "2"] parallel limit 2 { log "{{x}}" }
            if not "a" == "b" { log "t" } else if exists "f" { log "e" }
            """)
        let nodes = workflow.body.nodes
        guard case .group(.parallel(let parallel)) = nodes[0].kind else {
            Issue.record("not parallel")
            return
        }
        #expect(parallel.limit == 3)
        #expect(parallel.keepGoing)
        #expect(nodes[0].attributes.timeout == .seconds(60))
        #expect(parallel.lanes.children.map(\.id) == ["a", "b"])
        #expect(parallel.dependencies == [[], [0]])
        guard case .group(.race(let race)) = nodes[1].kind, case .group(.any(let any)) = nodes[2].kind else {
            Issue.record("no race/any")
            return
        }
        #expect(race.children.count == 1 && any.children.count == 1)
        guard case .group(.foreach(let foreach)) = nodes[3].kind else {
            Issue.record("not foreach")
            return
        }
        #expect(foreach.variable == "x")
        #expect(foreach.list == .items([.literal("1"), .literal("2")]))
        #expect(foreach.parallel && foreach.limit == 2 && !foreach.keepGoing)
        guard case .group(.conditional(let conditional)) = nodes[4].kind else {
            Issue.record("not if")
            return
        }
        #expect(conditional.condition == .not(.equal(.literal("a"), .literal("b"))))
        guard case .group(.conditional(let inner))? = conditional.otherwise?.nodes.first?.kind else {
            Issue.record("no else if")
            return
        }
        #expect(inner.condition == .exists(.literal("f")))
    }

    @Test func doubleNegationCancels() throws {
        let workflow = try workflow("if not not not not exists \"x\" { log \"a\" }")
        guard case .group(.conditional(let conditional))? = workflow.body.nodes.first?.kind else {
            Issue.record("not if")
            return
        }
        #expect(conditional.condition == .exists(.literal("x")))
    }

    @Test func listSources() throws {
        let workflow = try workflow(
            """
            foreach a in lines("f") { log "{{a}}" }
            foreach b in glob("*.txt") { log "{{b}}" }
            foreach c in range(1, 10) { log "{{c}}" }
            foreach d in [
              "x",
              "y",
            ] { log "{{d}}" }
            """)
        let lists = workflow.body.nodes.compactMap { node -> ListSource? in
            if case .group(.foreach(let foreach)) = node.kind { return foreach.list }
            return nil
        }
        #expect(
            lists == [
                .lines(.literal("f")), .glob(.literal("*.txt")), .range(.literal("1"), .literal("10")), .items([.literal("x"), .literal("y")]),
            ])
    }

    @Test func topLevelDeclarations() throws {
        let workflow = try workflow(
            """
            workflow "named"
            timeout 20m
            var a = "1"
            secret b = "2"
            var n = 3
            env E = "{{a}}"
            """, path: "dir/file.workflow")
        #expect(workflow.name == "named")
        #expect(workflow.timeout == .seconds(1200))
        #expect(workflow.directory == "dir")
        #expect(workflow.path == "dir/file.workflow")
        #expect(workflow.variables.map(\.name) == ["a", "b", "n"])
        #expect(workflow.variables.map(\.isSecret) == [false, true, false])
        #expect(workflow.variables[2].value == .literal("3"))
        #expect(workflow.variables[1].location == SourcePosition(line: 4, column: 8))
        #expect(workflow.body.statements.count == 1)
    }

    @Test func defaultNameAndFolder() throws {
        #expect(try workflow("log \"x\"", path: "ci.build.workflow").name == "ci.build")
        #expect(try workflow("log \"x\"", path: "/a/b/deploy").name == "deploy")
        #expect(try workflow("log \"x\"", path: "/a/b/deploy").directory == "/a/b")
        #expect(try workflow("log \"x\"", path: "-").name == "stdin")
        #expect(try workflow("log \"x\"", path: "-").directory == ".")
    }

    @Test func blockOnOneLineWithSemicolons() throws {
        let workflow = try workflow("parallel { a: log \"a\"; b: log \"b\" }")
        guard case .group(.parallel(let parallel))? = workflow.body.nodes.first?.kind else {
            Issue.record("not parallel")
            return
        }
        #expect(parallel.lanes.children.count == 2)
    }

    @Test func recoveryReportsEveryBadStatement() {
        #expect(
            messages("bad1\nlog \"ok\"\nbad2 {\n  nested\n}\nsleep 1\n") == [
                "unknown statement 'bad1'",
                "unknown statement 'bad2'",
                "missing unit in duration '1'; write a number with a unit: 250ms, 30s, 5m, 1h, 1m30s",
            ])
    }

    @Test func labelHints() {
        #expect(messages("build sh \"make\"") == ["unknown statement 'build'; to label a step, write 'build: sh ...'"])
        #expect(messages("a: catch { log \"x\" }") == ["a label names a step or a group; 'catch' cannot have one"])
        #expect(messages("a: 42") == ["expected a step or a group after the label 'a:', found '42'"])
    }

    @Test func statementsThatTakeNoBlock() {
        #expect(messages("log \"x\" extra") == ["expected the end of the statement (a new line or ';'), found 'extra'"])
        #expect(messages("var a = \"x\" {\n}") == ["unexpected '{'; this statement takes no block"])
    }

    @Test func stepBlockHoldsAttributesOnly() {
        #expect(messages("sh \"x\" {\n  log \"y\"\n}") == ["a step's block holds its attributes, not other steps; 'log' cannot be written here"])
    }

    @Test func reservedNames() {
        #expect(messages("var env = \"x\"") == ["'env' is reserved ({{env.…}}); choose another name"])
        #expect(messages("foreach error in [\"a\"] { log \"a\" }") == ["'error' is reserved ({{error.…}}); choose another name"])
    }

    @Test func groupOptionsAndMisplacedOptions() {
        #expect(messages("parallel limt 2 { log \"a\" }") == ["unknown option 'limt' for parallel; did you mean 'limit'?"])
        #expect(messages("foreach x in [\"a\"] limit 2 { log \"a\" }") == ["'limit' applies to parallel iterations; write 'parallel limit ...'"])
        #expect(messages("parallel limit 0 { log \"a\" }") == ["the limit must be from 1 to 1000000, not 0"])
    }

    @Test func conditionsNeedStrings() {
        #expect(messages("if x == \"a\" { log \"a\" }").first?.hasPrefix("expected a condition, found 'x'") == true)
        #expect(messages("if \"a\" = \"b\" { log \"a\" }") == ["'=' assigns; compare with '=='"])
    }

    @Test func unknownListFunction() {
        #expect(messages("foreach x in line(\"f\") { log \"a\" }") == ["unknown list 'line'; did you mean 'lines'?"])
    }

    @Test func durationsParse() {
        #expect(Parser.duration("1h2m3s4ms") == .seconds(3723) + .milliseconds(4))
        #expect(Parser.duration("0s") == .zero)
        #expect(Parser.duration("10") == nil)
        #expect(Parser.duration("s") == nil)
        #expect(Parser.duration("1s2") == nil)
        #expect(Parser.duration("9999999999s") == nil)
    }

    @Test func execWithAList() {
        // As Docker and GitHub Actions write a command: said, with the way.
        #expect(
            messages("exec [\"make\", \"all\"]")
                == ["'exec' takes the program and its arguments as strings in a row, not a list: exec \"make\" \"all\""])
    }

    @Test func statusPatterns() {
        #expect(messages("http GET \"http://u\" { expect status 299-200 }") == ["the status range '299-200' is empty; write the lower status first"])
        #expect(messages("http GET \"http://u\" { expect status abc }") == ["expected a status (such as 200, 2xx or 200-299), found 'abc'"])
        #expect(
            messages("http GET \"http://u\" { expect status 2x }") == ["invalid status '2x'; write a code (200), a class (2xx) or a range (200-299)"])
    }

    @Test func jsonPathErrorPointsInsideTheString() {
        let text = "http GET \"http://u\" {\n  expect json \".a.\" exists\n}"
        #expect(
            diagnostics(text) == """
                test.workflow:2:18: error: invalid JSON path: expected a key after '.' in JSON path
                  expect json ".a." exists
                                 ^
                note: JSON paths look like '.key', '.key.sub', '[0]', '["odd key"]'; '.' is the whole value; from '$': '$.items[*].id', '$..id', '$.items[?(@.price > 10)]'

                """)
    }

    @Test func jsonPathAndRegexMustBeLiteral() {
        #expect(
            messages("var p = \".a\"\nhttp GET \"http://u\" { expect json \"{{p}}\" exists }") == [
                "a JSON path cannot use '{{ }}'; it must be known before anything runs"
            ])
    }

    @Test func expectationsNeedAVerb() {
        #expect(
            messages("sh \"x\" { expect stdout \"ok\" }") == [
                "expected '==', '!=', 'contains', 'startsWith', 'endsWith' or 'matches' after 'expect stdout', found a string"
            ])
        #expect(messages("sh \"x\" { expect stdot contains \"ok\" }") == ["unknown expectation 'stdot'; did you mean 'stdout'?"])
    }

    @Test func requestBodyKinds() throws {
        let workflow = try workflow(
            "http PUT \"http://u\" { body file \"f\" }\nhttp PUT \"http://u\" { json \"{}\" }\nhttp PUT \"http://u\" { body \"x\" }")
        let bodies = steps(workflow.body).compactMap { step -> HTTPBody? in
            if case .http(let request) = step { return request.body }
            return nil
        }
        #expect(bodies == [.file(.literal("f")), .json(.literal("{}")), .text(.literal("x"))])
    }

    @Test func lineContinuation() throws {
        let workflow = try workflow("exec \"a\" \\\n  \"b\"")
        #expect(steps(workflow.body) == [.exec(arguments: [.literal("a"), .literal("b")], process: ProcessOptions())])
    }

    @Test func deepButAllowedNestingWorks() throws {
        let depth = Parser.maximumDepth
        let text = String(repeating: "sequence {\n", count: depth) + "log \"deep\"\n" + String(repeating: "}\n", count: depth)
        let workflow = try workflow(text)
        #expect(workflow.allNodes.count == depth + 1)
        #expect(!TreeRenderer().render(workflow).isEmpty)
        #expect(!DotRenderer().render(workflow).isEmpty)
        #expect(!JSONRenderer().render(workflow).isEmpty)
    }

    @Test func tooDeepNestingIsAnError() {
        let depth = Parser.maximumDepth + 1
        let text = String(repeating: "sequence {\n", count: depth) + "log \"deep\"\n" + String(repeating: "}\n", count: depth)
        #expect(messages(text) == ["blocks nested too deeply (the limit is \(Parser.maximumDepth))"])
    }

    @Test func longElseIfChainsAreBounded() {
        let text = "if \"a\" == \"b\" { log \"x\" }" + String(repeating: " else if \"a\" == \"b\" { log \"x\" }", count: 500)
        #expect(messages(text).contains("blocks nested too deeply (the limit is \(Parser.maximumDepth))"))
    }

    @Test func syntaxNodesKeepTheirRanges() {
        let source = SourceFile(path: "t", text: "a: sh \"x\" {\n  timeout 1s\n}\nparallel { log \"y\" }\nlog \"z\" # note\n")
        var bag = DiagnosticBag()
        let (file, _) = Parser.parse(source, diagnostics: &bag)
        let texts = file.body.statements.compactMap { statement -> String? in
            if case .node(let node) = statement { return source.text(node.range) }
            return nil
        }
        #expect(texts == ["a: sh \"x\" {\n  timeout 1s\n}", "parallel { log \"y\" }", "log \"z\""])
    }
}
