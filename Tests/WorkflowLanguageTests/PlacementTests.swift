import PromiseTestSupport
import Testing
import WorkflowTestSupport

@testable import PromiseEngine
@testable import WorkflowLanguage
@testable import WorkflowModel
@testable import WorkflowRun

/// `executor`, `partition`, `cpus`, `memory`, `slurm-options`.
/// See docs/language.md, 'Where process steps run: Slurm'.
@Suite("Where process steps run: the placement attributes")
struct PlacementTests {
    /// The placement of each process step, by label, after lowering.
    private func placements(_ text: String) throws -> [String: Placement] {
        var found: [String: Placement] = [:]
        func visit(_ block: Block) {
            for statement in block.statements {
                switch statement {
                case .node(let node): visit(node)
                case .catch(let clause): visit(clause.body)
                case .ensure(let body): visit(body)
                default: break
                }
            }
        }
        func visit(_ node: Node) {
            if let label = node.label, case .step = node.kind { found[label] = node.attributes.placement }
            guard case .group(let group) = node.kind else { return }
            switch group {
            case .sequence(let block): visit(block)
            case .parallel(let parallel): parallel.lanes.children.forEach(visit)
            case .race(let lanes), .any(let lanes): lanes.children.forEach(visit)
            case .foreach(let foreach): visit(foreach.body)
            case .conditional(let conditional):
                visit(conditional.then)
                if let otherwise = conditional.otherwise { visit(otherwise) }
            }
        }
        visit(try workflow(text).body)
        return found
    }

    @Test("a step inherits each setting from the nearest group that has it, then from the workflow")
    func inheritance() throws {
        let found = try placements(
            """
            executor slurm
            partition "debug"
            top: sh "true"
            parallel {
              cpus 4
              memory "2G"
              inner: sh "true" { partition "gpu" }
              mine: exec "true" { executor local }
              sequence {
                slurm-options "--qos=short --gres='gpu:1'"
                deep: sh "true" { cpus 1 }
              }
              web: http GET "http://127.0.0.1/"
            }
            """)
        #expect(found["top"] == Placement(executor: .slurm, partition: Template.literal("debug")))
        #expect(
            found["inner"]
                == Placement(
                    executor: .slurm, partition: Template.literal("gpu"), cpus: 4,
                    memory: Template.literal("2G")))
        #expect(found["mine"]?.executor == .local)
        #expect(found["mine"]?.cpus == 4)
        #expect(
            found["deep"]
                == Placement(
                    executor: .slurm, partition: Template.literal("debug"), cpus: 1,
                    memory: Template.literal("2G"),
                    slurmOptions: Template.literal("--qos=short --gres='gpu:1'")))
        #expect(found["web"]?.isEmpty == true, "an http step runs nowhere in particular")
    }

    @Test("mistakes get located errors that say what to write")
    func mistakes() {
        #expect(messages("a: sh \"true\" { executor slurn }") == ["unknown executor 'slurn'; did you mean 'slurm'?"])
        #expect(messages("a: sh \"true\" { executor \"slurm\" }") == ["expected 'local' or 'slurm' after 'executor', found a string"])
        #expect(messages("a: sh \"true\" { memory \"4 GB\" }").first?.hasPrefix("'4 GB' is not an amount of memory") == true)
        #expect(messages("a: sh \"true\" { cpus 0 }").first?.contains("the number of CPUs") == true)
        #expect(messages("a: sh \"true\" { cpus 2; cpus 3 }") == ["duplicate 'cpus'"])
        #expect(
            messages("a: http GET \"http://127.0.0.1/\" { partition \"x\" }")
                == ["attribute 'partition' does not apply to http steps; it is for sh and exec steps"])
    }

    @Test("memory amounts as srun --mem takes them")
    func memoryAmounts() {
        for good in ["512M", "4G", "1024", "2T", "100k"] { #expect(Placement.isMemoryAmount(good), "\(good)") }
        for bad in ["", "G", "4 G", "4GB", "-1", "1.5G"] { #expect(!Placement.isMemoryAmount(bad), "\(bad)") }
    }

    @Test("slurm-options split as a shell would")
    func shellWords() {
        #expect(ShellWords.split("--qos=short  --gres='gpu:1' --comment=\"a b\" x\\ y") == ["--qos=short", "--gres=gpu:1", "--comment=a b", "x y"])
        #expect(ShellWords.split("") == [])
        #expect(ShellWords.split("'open") == nil)
        #expect(ShellWords.split("\"say \\\"hi\\\"\"") == ["say \"hi\""])
    }

    @Test("--executor slurm fills in steps that do not say; the graph shows where each runs")
    func defaultExecutorAndRendering() throws {
        let lowered = try workflow(
            """
            parallel {
              a: sh "true" { cpus 2 }
              b: sh "true" { executor local; cpus 3 }
              c: sh "true" { partition "p" }
            }
            """
        ).withDefaultExecutor(.slurm)
        let tree = TreeRenderer().render(lowered)
        #expect(tree.contains("a: sh \"true\"  [on slurm cpus 2]"), "\(tree)")
        #expect(tree.contains("b: sh \"true\"  [cpus 3]"), "\(tree)")
        #expect(tree.contains("c: sh \"true\"  [on slurm partition \"p\"]"), "\(tree)")
        let json = JSONRenderer().render(lowered)
        #expect(json.contains("\"executor\": \"slurm\""))
        #expect(json.contains("\"executor\": \"local\""))
    }

    @Test("fmt puts the placement attributes after the process attributes and keeps the meaning")
    func formatting() throws {
        let text = "a: sh \"true\" { cpus 2; timeout 5s; executor slurm }\n"
        let formatted = try #require(WorkflowFormatter.format(SourceFile(path: "t.workflow", text: text)))
        #expect(formatted == "a: sh \"true\" {\n  timeout 5s\n  executor slurm\n  cpus 2\n}\n", "\(formatted)")
    }
}
