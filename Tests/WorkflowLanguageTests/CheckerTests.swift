import PromiseTestSupport
import Testing
import WorkflowTestSupport

@testable import PromiseEngine
@testable import WorkflowLanguage
@testable import WorkflowModel

@Suite("Checker")
struct CheckerTests {
    @Test func earlierStepsInTheChainAreFinished() {
        #expect(messages("a: sh \"x\"\nb: sh \"{{a.stdout}}\"\nlog \"{{b.exit}}\"").isEmpty)
    }

    @Test func stepsInsideASucceededSequenceOrParallelAreFinished() {
        #expect(
            messages(
                """
                sequence { a: sh "x" }
                parallel { b: sh "y"; c: sequence { d: sh "z" } }
                log "{{a.stdout}} {{b.stdout}} {{d.stdout}}"
                """
            ).isEmpty)
    }

    @Test func needsMakesASiblingFinishedWithWhatItHolds() {
        #expect(
            messages(
                """
                parallel {
                  prep: sequence { inner: sh "x" }
                  use: sh "{{inner.stdout}}" { needs prep }
                  later: sh "{{inner.stdout}}" { needs use }
                }
                """
            ).isEmpty)
    }

    @Test func siblingWithoutNeedsIsNotFinished() {
        #expect(messages("parallel {\n  a: sh \"x\"\n  b: sh \"{{a.stdout}}\"\n}") == ["'a' is not guaranteed to have finished here"])
    }

    @Test func raceAnyIfAndForeachDoNotLeakTheirSteps() {
        let text = """
            race { r: sh "x" }
            any { y: sh "x" }
            if "a" == "a" { i: sh "x" } else { e: sh "x" }
            foreach n in ["1"] { f: sh "x" }
            log "{{r.stdout}} {{y.stdout}} {{i.stdout}} {{e.stdout}} {{f.stdout}}"
            """
        #expect(
            messages(text) == [
                "'r' is not guaranteed to have finished here",
                "'y' is not guaranteed to have finished here",
                "'i' is not guaranteed to have finished here",
                "'e' is not guaranteed to have finished here",
                "'f' is inside a foreach body; its values exist only within one iteration",
            ])
    }

    @Test func insideABranchEarlierStepsOfTheBranchAreFinished() {
        #expect(
            messages(
                """
                if "a" == "a" { i: sh "x"; log "{{i.stdout}}" }
                race { sequence { r: sh "x"; log "{{r.stdout}}" } }
                foreach n in ["1"] { f: sh "{{n}}"; log "{{f.stdout}}" }
                """
            ).isEmpty)
    }

    @Test func aCatchForgetsTheChainBeforeIt() {
        #expect(messages("a: sh \"x\"\ncatch {\n  log \"{{a.stdout}}\"\n}\nlog \"{{a.stdout}}\"").count == 2)
    }

    @Test func stepsBeforeTheBlockSurviveACatchInside() {
        #expect(messages("a: sh \"x\"\nsequence {\n  b: sh \"y\"\n  catch { log \"{{a.stdout}}\" }\n  log \"{{a.stdout}}\"\n}").isEmpty)
    }

    @Test func ensureSeesNothingOfTheChainButThenRestoresIt() {
        #expect(messages("a: sh \"x\"\nensure {\n  log \"{{a.stdout}}\"\n}") == ["'a' is not guaranteed to have finished here"])
        #expect(messages("a: sh \"x\"\nensure {\n  e: sh \"y\"\n}\nlog \"{{a.stdout}} {{e.stdout}}\"").isEmpty)
    }

    @Test func fieldsDependOnTheStepKind() {
        #expect(
            messages(
                """
                s: sh "x"
                h: http GET "http://u" { capture t = json ".t" }
                r: file read "f"
                w: file write "f" "c"
                log "{{s.stdout}}{{s.stderr}}{{s.exit}}{{s.duration}}{{h.status}}{{h.body}}{{h.header.A}}{{h.json.a}}{{h.duration}}{{h.t}}{{r.content}}{{r.path}}{{w.path}}"
                """
            ).isEmpty)
        #expect(messages("s: sh \"x\"\nlog \"{{s.status}}\"") == ["unknown field 'status' of sh step 's'"])
        #expect(messages("h: http GET \"http://u\"\nlog \"{{h.stdout}}\"") == ["unknown field 'stdout' of http step 'h'"])
        #expect(messages("s: sh \"x\"\nlog \"{{s.header.A}}\"") == ["unknown field 'header' of sh step 's'"])
        #expect(messages("s: sleep 1s\nlog \"{{s.duration}}\"") == ["'s' is a sleep step; sleep steps have no fields"])
    }

    @Test func httpStepsHaveTheExchangeFields() {
        #expect(
            messages(
                """
                h: http GET "http://u"
                log "{{h.url}} {{h.redirects}} {{h.version}} {{h.cookie.session}} {{h.timing.dns}} {{h.timing.firstByte}} {{h.timing.total}}"
                """
            ).isEmpty)
        #expect(messages("s: sh \"x\"\nlog \"{{s.url}}\"") == ["unknown field 'url' of sh step 's'"])
        #expect(messages("s: sh \"x\"\nlog \"{{s.timing.total}}\"") == ["unknown field 'timing' of sh step 's'"])
        #expect(
            messages("h: http GET \"http://u\"\nlog \"{{h.timing.totl}}\"") == [
                "unknown timing phase 'totl'; did you mean 'total'? (timing has dns, connect, tls, firstByte, total)"
            ])
        // A capture named like a field added later keeps its meaning.
        #expect(messages("h: http GET \"http://u\" { capture version = json \".version\" }\nlog \"{{h.version}}\"").isEmpty)
        #expect(messages("s: sh \"x\" { capture url = stdout matches 'u' }\nlog \"{{s.url}}\"").isEmpty)
    }

    @Test func tlsAttributesAndCookiesOff() {
        #expect(
            messages(
                """
                cookies off
                h: http GET "https://h" {
                  insecure
                  cacert "ca.pem"
                  cert "c.pem"
                  key "k.pem"
                }
                """
            ).isEmpty)
        #expect(messages("h: http GET \"http://u\" {\n  insecure\n  insecure\n}") == ["duplicate 'insecure'"])
        #expect(messages("s: sh \"x\" { insecure }") == ["attribute 'insecure' does not apply to sh steps; it is for http steps"])
        // Their paths are checked like every other text of the step.
        #expect(
            messages("h: http GET \"http://u\" {\n  cacert \"{{nope.stdout}}\"\n  key \"{{nope2.stdout}}\"\n}")
                == ["unknown step 'nope'", "unknown step 'nope2'"])
        #expect(messages("cookies on") == ["'cookies on' is the default; only 'cookies off' can be written"])
        #expect(messages("sequence {\n  cookies off\n  cookies off\n}") == ["duplicate 'cookies off' in this block"])
    }

    @Test func aSecretOnACommandLineIsWarnedAbout() {
        let text = """
            secret token = "abc"
            var plain = "x"
            sh "curl -H 'Authorization: {{token}}' {{plain}}"
            exec "tool" "--token={{token}}"
            sh "curl -H \\"Authorization: $TOKEN\\"" {
              env TOKEN = "{{token}}"
            }
            log "{{plain}}"
            """
        let warnings = compile(text).diagnostics.filter { $0.severity == .warning }
        #expect(warnings.count == 2)
        #expect(
            warnings.allSatisfy {
                $0.message == "the secret 'token' is put on the command line, where any user of this machine can read it (ps, /proc)"
            })
        #expect(warnings.first?.notes.first?.message.contains("env TOKEN = \"{{token}}\"") == true)
        #expect(compile(text).workflow != nil, "a warning, not an error: the file still runs")
    }

    @Test func capturesBecomeFields() {
        #expect(messages("v: sh \"x\" { capture version = stdout matches 'v(.*)' }\nlog \"{{v.version}}\"").isEmpty)
        #expect(
            messages("v: sh \"x\" { capture version = stdout matches 'v(.*)' }\nlog \"{{v.versio}}\"") == [
                "unknown field 'versio' of sh step 'v'; did you mean 'version'?"
            ])
    }

    @Test func variablesAreScopedToTheirBlock() {
        #expect(messages("sequence {\n  var a = \"1\"\n  log \"{{a}}\"\n}\nlog \"{{a}}\"") == ["undeclared variable 'a'"])
        #expect(messages("var a = \"1\"\nsequence {\n  var a = \"2\"\n  log \"{{a}}\"\n}").isEmpty)
        #expect(messages("parallel {\n  var a = \"1\"\n  log \"{{a}}\"\n}").isEmpty)
    }

    @Test func foreachItemIsInScopeInTheBodyOnly() {
        #expect(messages("foreach x in [\"a\"] { log \"{{x}}\" }\nlog \"{{x}}\"") == ["undeclared variable 'x'"])
    }

    @Test func stepUsedAsVariable() {
        #expect(messages("a: sh \"x\"\nlog \"{{a}}\"") == ["'a' is a step, not a variable; name one of its fields, as in '{{a.stdout}}'"])
        #expect(messages("var v = \"x\"\nlog \"{{v.stdout}}\"") == ["'v' is a variable; variables have no fields"])
    }

    @Test func labelsMayRepeatInSeparateForeachBodies() {
        #expect(messages("foreach a in [\"1\"] { s: sh \"x\" }\nforeach b in [\"1\"] { s: sh \"x\" }").isEmpty)
        #expect(messages("s: sh \"y\"\nforeach a in [\"1\"] { s: sh \"x\" }") == ["duplicate label 's'"])
        #expect(messages("sequence { s: sh \"y\" }\nsequence { s: sh \"x\" }") == ["duplicate label 's'"])
    }

    @Test func idsAreLabelsWhenUniqueElseQualified() throws {
        let workflow = try workflow(
            """
            a: sh "x"
            sh "y"
            foreach i in ["1"] { s: sh "{{i}}" }
            foreach j in ["1"] { s: sh "{{j}}" }
            """)
        #expect(workflow.allNodes.map(\.id) == ["a", "sh@2:1", "foreach@3:1", "s@3:22", "foreach@4:1", "s@4:22"])
        #expect(workflow.allNodes.map(\.displayName) == ["a", "sh y", "foreach", "s", "foreach", "s"])
    }

    @Test func needsCyclesAreShownOnce() {
        #expect(messages("parallel {\n  a: sh \"x\" { needs b }\n  b: sh \"y\" { needs a }\n}") == ["'needs' forms a cycle: a -> b -> a"])
    }

    @Test func needsSuggestsASibling() {
        #expect(
            messages("parallel {\n  build: sh \"x\"\n  test: sh \"y\" { needs biuld }\n}") == [
                "'needs' names 'biuld', which is not a sibling in this parallel group; did you mean 'build'?"
            ])
    }

    @Test func needsOnAGroupInParallel() throws {
        let workflow = try workflow("parallel {\n  a: sh \"x\"\n  b: sequence {\n    needs a\n    log \"{{a.stdout}}\"\n  }\n}")
        guard case .group(.parallel(let parallel))? = workflow.body.nodes.first?.kind else {
            Issue.record("not parallel")
            return
        }
        #expect(parallel.dependencies == [[], [0]])
        #expect(parallel.lanes.children[1].attributes.needs == ["a"])
    }

    @Test func errorIsAvailableInNestedGroupsOfACatch() {
        #expect(messages("fail \"x\"\ncatch {\n  sequence { log \"{{error.message}}\"; rethrow }\n}").isEmpty)
    }

    @Test func referencesInEveryPlaceAreChecked() {
        let text = """
            http POST "{{u1}}" {
              header "A" "{{u2}}"
              body "{{u3}}"
              save "{{u4}}"
              expect body contains "{{u5}}"
              expect json ".a" == "{{u6}}"
            }
            sh "x" { cwd "{{u7}}"; env A = "{{u8}}"; stdin "{{u9}}" }
            foreach i in ["{{u10}}"] { log "{{i}}" }
            if exists "{{u11}}" { log "x" }
            env B = "{{u12}}"
            """
        #expect(messages(text) == (1...12).map { "undeclared variable 'u\($0)'" })
    }

    @Test func noCascadeAfterABrokenStatement() {
        #expect(
            messages("build: sh \"make\" extra\nlog \"{{build.stdout}}\"") == ["expected the end of the statement (a new line or ';'), found 'extra'"]
        )
        #expect(messages("var v = oops\nlog \"{{v}}\"") == ["expected a string as the value of 'v', found 'oops'"])
    }

    @Test func unknownVarOverrides() throws {
        let workflow = try workflow("var config = \"debug\"\nsecret token = \"x\"")
        #expect(WorkflowCompiler.unknownOverrides(["config", "token"], in: workflow).isEmpty)
        #expect(
            WorkflowCompiler.unknownOverrides(["confg"], in: workflow) == [
                "--var 'confg' does not name a top-level var of test.workflow; did you mean 'config'? (it declares 'config', 'token')"
            ])
    }

    @Test func nestedVarsCannotBeOverridden() throws {
        let workflow = try workflow("sequence {\n  var inner = \"x\"\n  log \"{{inner}}\"\n}")
        #expect(
            WorkflowCompiler.unknownOverrides(["inner"], in: workflow) == [
                "--var 'inner' does not name a top-level var of test.workflow (it declares none)"
            ])
    }

    @Test func warningsDoNotStopTheWorkflow() {
        let result = compile("fail \"stop\"\nlog \"never\"\nlog \"also never\"\ncatch { log \"c\" }\nlog \"runs\"\n")
        #expect(result.workflow != nil)
        #expect(!result.hasErrors)
        #expect(
            result.renderedDiagnostics() == """
                test.workflow:2:1: warning: this never runs: the 'fail' before it always fails the chain
                log "never"
                ^~~~~~~~~~~
                test.workflow:1:1: note: the chain fails here
                fail "stop"
                ^~~~

                """)
    }

    @Test func rethrowAlsoEndsTheChain() {
        #expect(messages("fail \"x\"\ncatch {\n  rethrow\n  log \"never\"\n}") == ["this never runs: the 'rethrow' before it always fails the chain"])
        #expect(messages("fail \"x\"\nensure { log \"always\" }\nlog \"skipped, no warning\"").isEmpty)
    }

    @Test func captureWithoutALabel() {
        #expect(messages("http GET \"http://u\" { capture t = json \".t\" }") == ["capture 't' cannot be used: the step has no label to name it by"])
        #expect(messages("a: http GET \"http://u\" { capture t = json \".t\" }").isEmpty)
    }
}
