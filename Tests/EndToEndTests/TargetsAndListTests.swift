import Foundation
import Testing

/// docs/command.md, 'Targets', end to end: targets, list, desc,
/// allow-failure, command words anywhere, help per command.
@Suite("End to end: targets, list, allow-failure, commands")
struct TargetsAndListTests {
    static let workflow = """
        workflow "ci"
        setup: sh "echo setup"
        checks: parallel {
          desc "everything that must pass"
          lint: sh "echo lint"
          unit: sh "echo unit" { needs build }
          build: sh "echo build" { desc "compile" }
          docs: sh "echo docs"
        }
        steps: sequence {
          first: sh "echo first"
          second: sh "echo second"
          third: sh "echo third"
        }
        pick: race {
          fast: sh "echo fast"
          slow: sh "sleep 5"
        }
        deploy: sh "echo deploy"
        ensure {
          cleanup: sh "echo cleanup"
        }
        """

    private func statuses(_ run: WorkflowRun) -> [String: String] {
        var statuses: [String: String] = [:]
        for step in run.steps {
            let id = step["id"] as? String ?? "?"
            var status = step["status"] as? String ?? "?"
            if let message = step["message"] as? String { status += " (\(message))" }
            statuses[id] = status
        }
        return statuses
    }

    @Test("a target in a parallel runs with the chain before it and the siblings it needs; the rest is not selected")
    func parallelWithNeeds() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("test.workflow", Self.workflow)
        let outcome = try await Binary.run(
            [
                "--report", "json=report.json", "--report", "junit=junit.xml", "--color", "never",
                "test.workflow", "unit",
            ], in: space.folder)
        #expect(outcome.status == 0, "\(outcome.stdout)\(outcome.stderr)")
        #expect(outcome.stdout.contains("lint skipped (not selected)"))
        #expect(space.read("junit.xml")?.contains("<skipped message=\"not selected\"/>") == true)
        let cut = WorkflowRun(outcome: outcome, reportText: space.read("report.json"))
        let statuses = statuses(cut)
        #expect(statuses["setup"] == "succeeded")
        #expect(statuses["unit"] == "succeeded")
        #expect(statuses["build"] == "succeeded", "unit needs build")
        #expect(statuses["lint"] == "skipped (not selected)")
        #expect(statuses["docs"] == "skipped (not selected)")
        #expect(statuses["first"] == "skipped (not selected)")
        #expect(statuses["deploy"] == "skipped (not selected)")
        #expect(statuses["cleanup"] == "succeeded", "ensure runs as usual")
    }

    @Test("a target nested in a sequence runs the sequence's chain up to it; race lanes not holding it do not run; several targets run the union")
    func nestedAndSeveral() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("test.workflow", Self.workflow)
        let alone = try await Binary.run(["--report", "json=report.json", "test.workflow", "second"], in: space.folder)
        #expect(alone.status == 0, "\(alone.stdout)\(alone.stderr)")
        let cut = statuses(WorkflowRun(outcome: alone, reportText: space.read("report.json")))
        #expect(cut["first"] == "succeeded")
        #expect(cut["second"] == "succeeded")
        #expect(cut["third"] == "skipped (not selected)", "after the target in its chain")
        #expect(cut["lint"] == "succeeded", "a group before the target's chain runs whole")
        #expect(cut["fast"] == "skipped (not selected)")

        let outcome = try await Binary.run(["--report", "json=report.json", "test.workflow", "second", "fast"], in: space.folder)
        #expect(outcome.status == 0, "\(outcome.stdout)\(outcome.stderr)")
        let statuses = statuses(WorkflowRun(outcome: outcome, reportText: space.read("report.json")))
        #expect(statuses["first"] == "succeeded")
        #expect(statuses["second"] == "succeeded")
        #expect(statuses["third"] == "succeeded", "the union: the sequence comes before the race that holds 'fast', so it runs whole")
        #expect(statuses["docs"] == "succeeded")
        #expect(statuses["fast"] == "succeeded")
        #expect(statuses["slow"] == "skipped (not selected)", "the other lane of the race")
        #expect(statuses["deploy"] == "skipped (not selected)")
    }

    @Test("an unknown target, or one inside a foreach body: exit 2 with what to do; nothing runs")
    func badTargets() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("test.workflow", Self.workflow + "\neach: foreach n in range(1, 2) {\n  inner: sh \"echo {{n}} > ran-{{n}}\"\n}\n")
        let unknown = try await Binary.run(["test.workflow", "deplyo"], in: space.folder)
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("no step or group is labelled 'deplyo'; did you mean 'deploy'?"))
        let inner = try await Binary.run(["test.workflow", "inner"], in: space.folder)
        #expect(inner.status == 2)
        #expect(inner.stderr.contains("'inner' is inside a foreach body"))
        #expect(space.read("ran-1") == nil, "nothing ran")
    }

    @Test("graph and --dry-run show the cut-down workflow")
    func graphAndDryRun() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("test.workflow", Self.workflow)
        let graph = try await Binary.run(["graph", "test.workflow", "unit"], in: space.folder)
        #expect(graph.status == 0)
        #expect(graph.stdout.contains("unit: sh") && graph.stdout.contains("build: sh"))
        #expect(!graph.stdout.contains("lint: sh") && !graph.stdout.contains("deploy: sh") && !graph.stdout.contains("steps: sequence"))
        let dry = try await Binary.run(["--dry-run", "test.workflow", "second"], in: space.folder)
        #expect(dry.stdout.contains("second: sh") && !dry.stdout.contains("third: sh"))
    }

    @Test("list: labelled steps and groups, nested, with kind and desc; --format json")
    func list() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("test.workflow", Self.workflow)
        let text = try await Binary.run(["list", "--color", "never", "test.workflow"], in: space.folder)
        #expect(text.status == 0)
        let lines = text.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "setup     sh")
        #expect(lines.contains("checks    parallel  everything that must pass"))
        #expect(lines.contains("  build   sh        compile"))
        let json = try await Binary.run(["list", "--format", "json", "test.workflow"], in: space.folder)
        let items = try #require(json.jsonObjects)
        #expect(items.map { $0["label"] as? String } == ["setup", "checks", "steps", "pick", "deploy", "cleanup"])
        let checks = try #require(items.first { $0["label"] as? String == "checks" })
        #expect(checks["desc"] as? String == "everything that must pass")
        #expect((checks["children"] as? [[String: Any]])?.map { $0["label"] as? String } == ["lint", "unit", "build", "docs"])
    }

    @Test("allow-failure on a step and on a group: reported failed and allowed, the run goes on, exit 0")
    func allowFailure() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(
            """
            lint: sh "echo style >&2; exit 1" { allow-failure }
            optional: sequence {
              allow-failure
              probe: sh "exit 3"
            }
            after: log "lint exit {{lint.exit}}"
            """, ["--report", "junit=junit.xml", "--color", "never"], environment: ["GITHUB_ACTIONS": "true"])
        #expect(run.status == 0, "\(run.stdout)")
        #expect(run.stdout.contains("✗ lint exit 1 (allowed)"))
        #expect(run.stdout.contains("lint exit 1"), "the chain went on with the step's result")
        #expect(run.step("lint")?["status"] as? String == "failed")
        #expect(run.step("lint")?["allowedFailure"] as? Bool == true)
        let groups = try #require(run.report?["groups"] as? [[String: Any]])
        #expect(groups.first { $0["id"] as? String == "optional" }?["allowedFailure"] as? Bool == true)
        #expect(
            run.stdout.contains("::warning file=test.workflow,line=1,col=1,title=lint failed (exit)%2C handled by allow-failure::"),
            "\(run.stdout)")
        #expect(run.step("probe")?["handledBy"] as? String == "allow-failure of 'optional'")
        // Handled: no JUnit failure, the story in system-err.
        let junit = try #require(space.read("junit.xml"))
        #expect(junit.contains("failures=\"0\""), "\(junit)")
        #expect(junit.contains("failed (exit): expected exit 0, got 1"), "\(junit)")
        #expect(junit.contains("handled by allow-failure: not a failure of the run"), "\(junit)")
    }

    @Test("commands: after options, mistyped, help COMMAND and COMMAND --help, -V")
    func commands() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("test.workflow", Self.workflow)
        let late = try await Binary.run(["--color", "never", "check", "test.workflow"], in: space.folder)
        #expect(late.status == 0, "\(late.stderr)")
        let typo = try await Binary.run(["chek", "test.workflow"], in: space.folder)
        #expect(typo.status == 2)
        #expect(typo.stderr.contains("unknown command 'chek'; did you mean 'check'?"))
        let help = try await Binary.run(["help", "list"], in: space.folder)
        #expect(help.status == 0 && help.stdout.hasPrefix("usage: promise-run list"))
        let flag = try await Binary.run(["graph", "--help"], in: space.folder)
        #expect(flag.status == 0 && flag.stdout.hasPrefix("usage: promise-run graph"))
        let version = try await Binary.run(["-V"], in: space.folder)
        #expect(version.status == 0 && version.stdout.hasPrefix("promise-run "))
    }

    @Test("desc needs a label")
    func descNeedsALabel() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("bad.workflow", "sh \"true\" { desc \"x\" }\n")
        let outcome = try await Binary.run(["check", "bad.workflow"], in: space.folder)
        #expect(outcome.status == 2)
        #expect(outcome.stderr.contains("bad.workflow:1:13: error: 'desc' describes a labelled step or group"))
    }
}
