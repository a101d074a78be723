import Testing
import WorkflowTestSupport

@testable import WorkflowLanguage
@testable import WorkflowModel

/// `on-demand` in the language: where it may be written, what
/// the parser and the checker say when it may not, and what it does to
/// "surely finished".
/// See docs/language.md, 'Incremental steps'.
@Suite("Checker: on-demand")
struct OnDemandCheckTests {
    @Test("on a labelled step, as a statement of a labelled group, and on a lane it is lowered onto the node")
    func accepted() throws {
        let workflow = try workflow(
            """
            clean: sh "rm -rf build" {
              on-demand
            }
            docs: sequence {
              on-demand
              desc "the documentation"
              api: sh "make api"
            }
            lanes: parallel {
              fast: sh "true"
              slow: sh "true" {
                on-demand
              }
            }
            each: foreach f in ["a"] {
              on-demand
              log "{{f}}"
            }
            """)
        let onDemand = workflow.allNodes.filter(\.attributes.onDemand).compactMap(\.label)
        #expect(onDemand == ["clean", "docs", "slow", "each"])
        #expect(workflow.outline.map(\.onDemand) == [true, true, false, true])
    }

    @Test("without a label: an error at the word, saying to give it one")
    func needsALabel() {
        let text = diagnostics(
            """
            sh "rm -rf build" {
              on-demand
            }
            sequence {
              on-demand
              log "x"
            }
            """)
        #expect(text.contains("test.workflow:2:3: error: 'on-demand' keeps a step or group out of a run until a target names it"))
        #expect(text.contains("test.workflow:5:3: error: 'on-demand'"))
        #expect(text.contains("give this one a label (name: ...)"))
    }

    @Test("inside a foreach or repeat body: an error pointing at the foreach, saying where to put it")
    func notInsideAForeachBody() {
        let text = diagnostics(
            """
            foreach f in ["a"] {
              each: sh "echo {{f}}" {
                on-demand
              }
            }
            repeat 2 {
              inner: sequence {
                on-demand
                log "x"
              }
            }
            """)
        #expect(text.contains("test.workflow:3:5: error: 'on-demand' cannot be inside a foreach body"))
        #expect(text.contains("put 'on-demand' in the block of the foreach itself (labelled)"))
        #expect(text.contains("test.workflow:1:1: note: the foreach is here"))
        #expect(text.contains("test.workflow:8:5: error: 'on-demand' cannot be inside a foreach body"))
        #expect(text.contains("test.workflow:6:1: note: the repeat is here"))
    }

    @Test("inside a catch or an ensure block, or as a statement of one: an error")
    func notInsideACatchOrEnsure() {
        let text = diagnostics(
            """
            a: sh "false"
            catch {
              report: sh "echo failed" {
                on-demand
              }
            }
            ensure {
              tidy: sequence {
                on-demand
                log "x"
              }
            }
            ensure {
              on-demand
            }
            """)
        #expect(text.contains("test.workflow:4:5: error: 'on-demand' cannot be inside a catch or ensure block"))
        #expect(text.contains("test.workflow:2:1: note: the catch is here"))
        #expect(text.contains("test.workflow:9:5: error: 'on-demand' cannot be inside a catch or ensure block"))
        #expect(text.contains("test.workflow:7:1: note: the ensure is here"))
        #expect(text.contains("test.workflow:14:3: error: 'on-demand' cannot be inside a catch or ensure block"))
        #expect(text.contains("put 'on-demand' on a step or group of the chain, or remove it"))
    }

    @Test("twice is an error; at the top level it applies to nothing; 'manual' suggests it")
    func misspelledAndMisplaced() {
        #expect(messages("a: sh \"x\" {\n  on-demand\n  on-demand\n}") == ["duplicate 'on-demand'"])
        #expect(messages("on-demand\na: sh \"x\"").first?.contains("cannot apply to the whole workflow") == true)
        #expect(messages("a: sh \"x\" { manual }") == ["unknown attribute 'manual' for sh; did you mean 'on-demand'?"])
    }

    @Test("what an on-demand step or group finished is not surely there after it, and the note says why")
    func notSurelyFinished() {
        let text = diagnostics(
            """
            gen: sh "echo x" {
              on-demand
            }
            docs: sequence {
              on-demand
              api: sh "echo api"
              log "{{api.stdout}}"
            }
            log "{{gen.stdout}} {{api.stdout}}"
            """)
        #expect(text.contains("test.workflow:9:6: error: 'gen' is not guaranteed to have finished here"))
        #expect(text.contains("test.workflow:9:21: error: 'api' is not guaranteed to have finished here"))
        #expect(text.contains("note: 'gen' is on demand, or inside an on-demand group: it runs only when a target names it"))
        #expect(!text.contains(":7:"), "inside the group, its earlier steps are finished")
    }

    @Test("an on-demand lane a lane that runs needs is finished for it and after the parallel; one nothing needs is not")
    func neededLanesAreFinished() {
        #expect(
            messages(
                """
                parallel {
                  gen: sh "echo x" {
                    on-demand
                  }
                  use: sh "echo {{gen.stdout}}" {
                    needs gen
                  }
                }
                log "{{gen.stdout}} {{use.stdout}}"
                """
            ).isEmpty)
        #expect(
            messages(
                """
                parallel {
                  gen: sh "echo x" {
                    on-demand
                  }
                  other: sh "true"
                }
                log "{{gen.stdout}}"
                """) == ["'gen' is not guaranteed to have finished here"])
    }
}
