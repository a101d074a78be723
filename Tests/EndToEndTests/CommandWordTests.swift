import Foundation
import Testing

/// The command word may come after options (docs/command.md), whichever
/// options: each run option that takes a value is skipped with its value.
/// `run` is the default command said out loud.
@Suite("End to end: the command word after options, and run")
struct CommandWordTests {
    @Test(
        "every option that takes a value, written before graph, leaves graph the command",
        arguments: [
            ["--executor", "local"], ["--executor", "slurm"], ["-j", "2"], ["--jobs", "2"], ["--http-connections", "8"],
            ["--timeout", "5s"], ["--color", "never"], ["--report-output", "4"], ["--output", "quiet"],
        ])
    func optionValueBeforeCommand(option: [String]) async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("f.workflow", "a: sh \"echo hi\"\n")
        let outcome = try await Binary.run(option + ["graph", "f.workflow"], in: space.folder)
        if ["--executor", "--color"].contains(option[0]) {
            #expect(outcome.status == 0, "\(outcome.stderr)")
            #expect(outcome.stdout.contains("a: sh \"echo hi\""), "\(outcome.stdout)")
            if option == ["--executor", "slurm"] { #expect(outcome.stdout.contains("[on slurm]"), "\(outcome.stdout)") }
        } else {
            // A run option before graph: graph is still the command, and
            // says the option is not its own (not "cannot read '2'").
            #expect(outcome.status == 2)
            #expect(outcome.stderr.contains("'\(option[0])' is an option of running a workflow"), "\(outcome.stderr)")
        }
    }

    @Test("--slurm-jobs before graph is no longer misread as a file")
    func slurmJobsBeforeGraph() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("f.workflow", "a: sh \"echo hi\"\n")
        let outcome = try await Binary.run(["--slurm-jobs", "4", "graph", "f.workflow"], in: space.folder)
        #expect(outcome.status == 2)
        #expect(outcome.stderr.contains("'--slurm-jobs' is an option of running a workflow"), "\(outcome.stderr)")
        #expect(!outcome.stderr.contains("cannot read"), "\(outcome.stderr)")
        let run = try await Binary.run(["--slurm-jobs", "4", "--executor", "local", "f.workflow"], in: space.folder)
        #expect(run.status == 0, "\(run.stderr)")
    }

    @Test("run FILE runs the file, also one named like a command; help says so")
    func explicitRun() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("ci.workflow", "a: sh \"echo =ran ci\"\n")
        try space.write("check", "a: sh \"echo =ran check\"\n")
        let ci = try await Binary.run(["run", "--color", "never", "ci.workflow"], in: space.folder)
        #expect(ci.status == 0, "\(ci.stderr)")
        #expect(ci.stdout.contains("=ran ci"))
        let named = try await Binary.run(["run", "check"], in: space.folder)
        #expect(named.status == 0, "\(named.stderr)")
        #expect(named.stdout.contains("=ran check"))
        let missing = try await Binary.run(["run"], in: space.folder)
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("run needs a workflow file"))
        let help = try await Binary.run(["help", "language"], in: space.folder)
        #expect(help.status == 2)
        #expect(help.stderr.contains("the commands are run, check, graph"))
        let runHelp = try await Binary.run(["help", "run"], in: space.folder)
        #expect(runHelp.status == 0)
        #expect(runHelp.stdout.contains("promise-run [run] [OPTIONS] FILE"))
    }
}
