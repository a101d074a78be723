import PromiseTestSupport
import Testing
import WorkflowTestSupport

@testable import PromiseEngine
@testable import WorkflowLanguage
@testable import WorkflowModel
@testable import WorkflowRun

@Suite("Tree renderer")
struct TreeRendererTests {
    @Test func theFirstLookExample() throws {
        let workflow = try workflow(
            """
            workflow "ci"
            timeout 20m
            var config = "debug"
            env FLAGS = "-c {{config}}"
            build: sh "swift build $FLAGS" {
              timeout 10m
              retry 1
            }
            parallel limit 4 {
              unit: sh "swift test"
              health: http GET "http://127.0.0.1:8080/health" {
                expect status 200
                expect json ".ok" == true
              }
            }
            catch {
              log "failed in {{error.step}}"
              rethrow
            }
            ensure {
              file delete ".build/tmp"
            }
            """)
        #expect(
            TreeRenderer().render(workflow) == """
                workflow "ci"  [timeout 20m]
                ├─ var config = "debug"
                ├─ env FLAGS = "-c {{config}}"
                ├─ build: sh "swift build $FLAGS"  [timeout 10m, retry 1]
                ├─ parallel  [limit 4]
                │  ├─ unit: sh "swift test"
                │  └─ health: http GET "http://127.0.0.1:8080/health"
                │     ├─ expect status 200
                │     └─ expect json ".ok" == true
                ├─ catch
                │  ├─ log "failed in {{error.step}}"
                │  └─ rethrow
                └─ ensure
                   └─ file delete ".build/tmp"

                """)
    }

    @Test func groupsAttributesAndDetails() throws {
        let workflow = try workflow(
            """
            parallel keep-going {
              a: sh "x" { cwd "d"; env A = "1"; stdin "in"; capture v = stdout matches 'v(.*)' }
              b: http POST "http://u" {
                needs a
                header "H" "v"
                form f "1"
                redirects 2
                save "out"
                retry 3 backoff 1s
              }
            }
            foreach x in range(1, 3) parallel limit 2 {
              log "{{x}}"
            }
            if "a" != "b" {
              sleep 1m30s
            } else {
              fail "no"
            }
            race { exec "a" "b" }
            catch timeout exit {
              log "t"
            }
            """)
        #expect(
            TreeRenderer().render(workflow) == """
                workflow "test"
                ├─ parallel  [keep-going]
                │  ├─ a: sh "x"
                │  │  ├─ cwd "d"
                │  │  ├─ env A = "1"
                │  │  ├─ stdin "in"
                │  │  └─ capture v = stdout matches 'v(.*)'
                │  └─ b: http POST "http://u"  [redirects 2, retry 3 backoff 1s, needs a]
                │     ├─ header "H" "v"
                │     ├─ form "f" "1"
                │     └─ save "out"
                ├─ foreach x in range(1, 3)  [parallel, limit 2]
                │  └─ log "{{x}}"
                ├─ if "a" != "b"
                │  ├─ then
                │  │  └─ sleep 1m30s
                │  └─ else
                │     └─ fail "no"
                ├─ race
                │  └─ exec "a" "b"
                └─ catch timeout exit
                   └─ log "t"

                """)
    }

    @Test func dryRunFillsInKnownValuesAndMasksSecrets() throws {
        let workflow = try workflow(
            """
            var base = "http://127.0.0.1:8080"
            var mode = "debug"
            secret token = "{{env.TOKEN ?? "dev"}}"
            var header = "Bearer {{token}}"
            env HOME_BIN = "{{env.HOME_DIR}}/bin"
            a: sh "build --mode {{mode | shell}} --missing {{env.NOPE}}"
            http GET "{{base}}/x?q={{a.stdout | url}}" {
              header "Authorization" "{{header}}"
            }
            foreach item in ["{{mode}}"] {
              log "{{item}} {{mode}}"
            }
            """)
        let environment: @Sendable (String) -> String? = { ["HOME_DIR": "/home/me", "TOKEN": "s3cret"][$0] }
        let values = DryRunValues(overrides: ["mode": "release"], environment: environment)
        #expect(
            TreeRenderer(values: values).render(workflow) == """
                workflow "test"
                ├─ var base = "http://127.0.0.1:8080"
                ├─ var mode = "release"
                ├─ secret token = ***
                ├─ var header = ***
                ├─ env HOME_BIN = "/home/me/bin"
                ├─ a: sh "build --mode 'release' --missing {{env.NOPE}}"
                ├─ http GET "http://127.0.0.1:8080/x?q={{a.stdout | url}}"
                │  └─ header "Authorization" "***"
                └─ foreach item in ["release"]
                   └─ log "{{item}} release"

                """)
    }
}
