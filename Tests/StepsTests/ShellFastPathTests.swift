import Foundation
import PromiseEngine
import Testing
import WorkflowModel

@testable import Steps

@Suite("sh without a shell for plain commands")
struct ShellFastPathTests {
    let runner = SystemStepRunner()

    @Test("plain words run directly; their words are what the shell would split")
    func plainCommands() {
        #expect(ShellFastPath.words("true") == ["true"])
        #expect(ShellFastPath.words("  make   -C  sub test ") == ["make", "-C", "sub", "test"])
        #expect(ShellFastPath.words("swift build -c release --product=promise-run") == ["swift", "build", "-c", "release", "--product=promise-run"])
        #expect(ShellFastPath.words("./scripts/run.sh a,b user@host 50%") == ["./scripts/run.sh", "a,b", "user@host", "50%"])
    }

    @Test(
        "anything the shell would interpret goes through the shell",
        arguments: [
            "echo hi", "cd /tmp", "exit 3", "printf x", "pwd", "test -f x", "[ -f x ]", "kill 1",
            "FOO=1 env", "ls *.c", "ls ?", "cat ~/x", "a; b", "a && b", "a | b", "a > f", "a < f", "a &",
            "echo $HOME", "echo `date`", "echo 'q'", "echo \"q\"", "a \\ b", "a # comment", "(a)", "{ a; }",
            "if true", "! true", "a\nb", "",
        ])
    func shellSyntax(_ command: String) {
        #expect(ShellFastPath.words(command) == nil)
    }

    @Test("a direct run gives what the shell gives: output, exit code, environment, folder")
    func sameResults() async throws {
        let folder = TemporaryFolder()
        let context = folder.context()
        // `ls -d` of a missing path: exit 2 and the same message either way.
        let direct = try #require(failure(await run(sh("ls -d /no/such/path"), runner, in: context)))
        let shelled = try #require(failure(await run(sh("ls -d /no/such/path;"), runner, in: context)))
        #expect(direct.result?.exitCode == shelled.result?.exitCode)
        #expect(direct.result?.stderr?.text == shelled.result?.stderr?.text)
        let env = try #require(value(await run(sh("env"), runner, in: context)))
        let shellEnv = try #require(value(await run(sh("env;"), runner, in: context)))
        // The mark differs from step to step (StepMarkers).
        let drop = ["PWD", "SHLVL", "_", "OLDPWD", "PROMISE_RUN_STEP"]
        func lines(_ text: String?) -> [String] {
            (text ?? "").split(separator: "\n").map(String.init).filter { line in !drop.contains { line.hasPrefix($0 + "=") } }.sorted()
        }
        #expect(lines(env.stdout?.text) == lines(shellEnv.stdout?.text))
        let folderName = try #require(value(await run(sh("realpath ."), runner, in: context)))
        #expect(
            folderName.stdout?.text.trimmingCharacters(in: .newlines) == URL(fileURLWithPath: context.workingDirectory).resolvingSymlinksInPath().path
        )
    }

    @Test("a program that is not found goes to the shell, which says so with exit 127")
    func notFound() async throws {
        let folder = TemporaryFolder()
        let failed = try #require(failure(await run(sh("no-such-program-promise-run"), runner, in: folder.context())))
        #expect(failed.result?.exitCode == 127)
        #expect(failed.result?.stderr?.text.contains("not found") == true)
    }

    @Test("a script without a #! line runs as a shell script, as the shell would run it")
    func scriptWithoutInterpreterLine() async throws {
        let folder = TemporaryFolder()
        let script = folder.file("noshebang.sh")
        try "echo from the script $((20 + 22))\n".write(toFile: script, atomically: true, encoding: .utf8)
        #expect(chmod(script, 0o755) == 0)
        let result = try #require(value(await run(sh("./noshebang.sh"), runner, in: folder.context())))
        #expect(result.stdout?.text == "from the script 42\n")
    }
}
