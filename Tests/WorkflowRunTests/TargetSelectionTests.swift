import Testing
import WorkflowTestSupport

@testable import WorkflowModel
@testable import WorkflowRun

/// `TargetSelection`: what a run runs, as the executor and
/// the renderers both ask it, with `on-demand` steps and groups.
/// See docs/language.md, 'Targets, desc, allow-failure, dotenv' and 'Incremental steps'.
@Suite("Target selection and on-demand")
struct TargetSelectionTests {
    static let build = """
        var name = "app"
        clean: sh "rm -rf build" {
          on-demand
        }
        var flags = "-O2"
        compile: sh "cc {{flags}} -o {{name}}"
        install: sh "cp {{name}} /usr/local/bin" {
          on-demand
        }
        """

    private func selection(_ workflow: Workflow, _ targets: [String]) throws -> TargetSelection {
        try TargetSelection.make(workflow, targets: targets).get()
    }

    private func node(_ workflow: Workflow, _ label: String) throws -> Node {
        try #require(workflow.allNodes.first { $0.label == label })
    }

    @Test("an ordinary run leaves every on-demand node out, shown apart; the variables keep their places among what runs")
    func ordinaryRun() throws {
        let workflow = try workflow(Self.build)
        let ordinary = TargetSelection.ordinary(workflow)
        #expect(ordinary.course(of: try node(workflow, "clean"), at: 0, cutAt: nil) == .onDemand)
        #expect(ordinary.course(of: try node(workflow, "compile"), at: 1, cutAt: nil) == .whole)
        let cut = ordinary.cut(workflow)
        #expect(cut.body.nodes.compactMap(\.label) == ["compile"])
        #expect(cut.leftOutOnDemand.compactMap(\.label) == ["clean", "install"])
        let order = cut.bodyWithVariables(overrides: [:]).statements.map { statement -> String in
            switch statement {
            case .variable(let variable): return variable.name
            case .node(let node): return node.label ?? "?"
            default: return "?"
            }
        }
        #expect(order == ["name", "flags", "compile"])
        let tree = TreeRenderer().render(cut)
        #expect(
            tree.contains(
                """
                on demand, not run (name one to run it: promise-run test.workflow LABEL)
                ├─ clean: sh "rm -rf build"
                └─ install: sh "cp {{name}} /usr/local/bin"
                """), "\(tree)")
        #expect(JSONRenderer().render(cut).contains("\"onDemandNotRun\": ["))
        #expect(DotRenderer().render(cut).contains("style=\"rounded,dashed\""))
    }

    @Test("named, an on-demand node runs with the chain before it; the on-demand ones not named stay out")
    func namedRuns() throws {
        let workflow = try workflow(Self.build)
        let install = try selection(workflow, ["install"])
        let cutPoint = install.cutPoint(of: workflow.body, cut: true)
        #expect(install.course(of: try node(workflow, "clean"), at: 0, cutAt: cutPoint) == .onDemand)
        #expect(install.course(of: try node(workflow, "compile"), at: 1, cutAt: cutPoint) == .whole)
        #expect(install.course(of: try node(workflow, "install"), at: 2, cutAt: cutPoint) == .whole)
        let cut = install.cut(workflow)
        #expect(cut.body.nodes.compactMap(\.label) == ["compile", "install"])
        #expect(cut.leftOutOnDemand.compactMap(\.label) == ["clean"])

        let clean = try selection(workflow, ["clean"])
        let cleaned = clean.cut(workflow)
        #expect(cleaned.body.nodes.compactMap(\.label) == ["clean"])
        #expect(cleaned.variables.map(\.name) == ["name"], "a variable after the last target does not run")
        #expect(cleaned.leftOutOnDemand.compactMap(\.label) == ["install"], "an on-demand node after the target says why it is out")
    }

    @Test("a group named runs as an ordinary run would: its on-demand parts stay out; an on-demand group holding a target runs cut")
    func groups() throws {
        let workflow = try workflow(
            """
            release: sequence {
              build: sh "make"
              publish: sh "make publish" {
                on-demand
              }
              tag: sh "git tag"
            }
            docs: sequence {
              on-demand
              api: sh "make api"
              guide: sh "make guide"
              site: sh "make site"
            }
            """)
        let release = try selection(workflow, ["release"]).cut(workflow)
        #expect(release.allNodes.compactMap(\.label) == ["release", "build", "tag"])
        #expect(release.leftOutOnDemand.compactMap(\.label) == ["publish", "docs"], "after the target, on demand says why")
        let both = try selection(workflow, ["release", "publish"]).cut(workflow)
        #expect(both.allNodes.compactMap(\.label) == ["release", "build", "publish", "tag"])
        let guide = try selection(workflow, ["guide"])
        #expect(guide.course(of: try node(workflow, "docs"), planned: .notSelected) == .cut)
        #expect(guide.cut(workflow).allNodes.compactMap(\.label) == ["release", "build", "tag", "docs", "api", "guide"])
    }

    @Test("a lane that runs brings the on-demand lanes it needs, in turn, in an ordinary run as with targets")
    func needsBringOnDemandLanes() throws {
        let workflow = try workflow(
            """
            parallel {
              fetch: sh "fetch" {
                on-demand
              }
              gen: sh "gen" {
                on-demand
                needs fetch
              }
              build: sh "make" {
                needs gen
              }
              bench: sh "bench" {
                on-demand
              }
              lint: sh "lint"
            }
            """)
        let group = try #require(workflow.body.nodes.first)
        guard case .group(.parallel(let parallel)) = group.kind else {
            Issue.record("not a parallel")
            return
        }
        let children = parallel.lanes.children
        let ordinary = TargetSelection.ordinary(workflow).lanes(children, dependencies: parallel.dependencies, cut: false)
        #expect(ordinary == [.whole, .whole, .whole, .onDemand, .whole])
        let lint = try selection(workflow, ["lint"]).lanes(children, dependencies: parallel.dependencies, cut: true)
        #expect(lint == [.onDemand, .onDemand, .notSelected, .onDemand, .whole], "left out, an on-demand lane says so")
        let bench = try selection(workflow, ["bench"]).lanes(children, dependencies: parallel.dependencies, cut: true)
        #expect(bench == [.onDemand, .onDemand, .notSelected, .whole, .notSelected])
        #expect(TargetSelection.withNeeds([false, false, true], [[], [0], [1]]) == [true, true, true])
        let cut = TargetSelection.ordinary(workflow).cut(workflow)
        guard case .group(.parallel(let shown)) = try #require(cut.body.nodes.first).kind else {
            Issue.record("not a parallel")
            return
        }
        #expect(shown.lanes.children.compactMap(\.label) == ["fetch", "gen", "build", "lint"])
        #expect(shown.dependencies == [[], [0], [1], []], "the needs point at the lanes that are left")
    }

    @Test("the message of a node left out says how to run it, with the file as given (quoted when it must be)")
    func reasons() throws {
        let spaced = try workflow(Self.build, path: "my project/ci.workflow")
        let ordinary = TargetSelection.ordinary(spaced)
        let clean = try node(spaced, "clean")
        #expect(ordinary.reason(.onDemand, for: clean) == "on demand: run it with promise-run 'my project/ci.workflow' clean")
        #expect(ordinary.reason(.notSelected, for: clean) == "not selected")
        #expect(ordinary.reason(.whole, for: clean) == nil)
        let plain = try workflow(Self.build, path: "ci/build.workflow")
        #expect(
            TargetSelection.ordinary(plain).reason(.onDemand, for: try node(plain, "install"))
                == "on demand: run it with promise-run ci/build.workflow install")
    }
}
