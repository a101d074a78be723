import Foundation
import Testing

@Suite("promise-run check")
struct CheckCommandTests {
    /// The binary is the one `PROMISE_RUN_BINARY` names (CI's release
    /// build), else the one beside the test executable, not the fallback
    /// to .build/debug.
    @Test func theBinaryIsFoundBesideTheTests() throws {
        let url = try #require(Binary.url)
        if let chosen = ProcessInfo.processInfo.environment["PROMISE_RUN_BINARY"], !chosen.isEmpty {
            #expect(url.standardizedFileURL == URL(fileURLWithPath: chosen, relativeTo: Binary.packageRoot).standardizedFileURL)
            #expect(FileManager.default.isExecutableFile(atPath: url.path), "PROMISE_RUN_BINARY=\(chosen): no such program")
            return
        }
        let testFolder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().standardizedFileURL
        let bundleFolders = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()].map(\.standardizedFileURL)
        let folder = url.deletingLastPathComponent().standardizedFileURL
        #expect(folder == testFolder || bundleFolders.contains(folder), "found at \(url.path); tests run from \(CommandLine.arguments[0])")
    }

    @Test func validFilesPass() async throws {
        let outcome = try await Binary.run(["check", "workflows/ci.workflow", "workflows/demo.workflow"])
        #expect(outcome.status == 0)
        #expect(outcome.stdout == "workflows/ci.workflow: ok (10 steps)\nworkflows/demo.workflow: ok (15 steps)\n")
        #expect(outcome.stderr == "")
    }

    @Test func quietPrintsNothing() async throws {
        let outcome = try await Binary.run(["check", "-q", "workflows/ci.workflow"])
        #expect(outcome.status == 0)
        #expect(outcome.stdout == "")
    }

    @Test func errorsGiveDiagnosticsAndExit2() async throws {
        let outcome = try await Binary.run(["check", "Tests/Fixtures/Corpus/01-unknown-attribute.workflow"])
        #expect(outcome.status == 2)
        #expect(outcome.stdout == "")
        #expect(
            outcome.stderr == """
                Tests/Fixtures/Corpus/01-unknown-attribute.workflow:2:5: error: unknown attribute 'timout' for sh; did you mean 'timeout'?
                    timout 10m
                    ^~~~~~

                """)
    }

    @Test func everyFileIsCheckedEvenAfterABadOne() async throws {
        let outcome = try await Binary.run(["check", "Tests/Fixtures/Corpus/25-duration-without-unit.workflow", "workflows/ci.workflow"])
        #expect(outcome.status == 2)
        #expect(outcome.stdout == "workflows/ci.workflow: ok (10 steps)\n")
        #expect(outcome.stderr.hasPrefix("Tests/Fixtures/Corpus/25-duration-without-unit.workflow:1:7: error: missing unit"))
    }

    @Test func warningsArePrintedButPass() async throws {
        let outcome = try await Binary.run(["check", "-"], stdin: "fail \"x\"\nlog \"y\"\n")
        #expect(outcome.status == 0)
        #expect(outcome.stdout == "<stdin>: ok (2 steps)\n")
        #expect(outcome.stderr.hasPrefix("<stdin>:2:1: warning: this never runs"))
    }

    /// The language server checks on every pause in typing: a long chain
    /// of `needs` must not take seconds (it took 13 s at 20,000 steps).
    @Test("check of a 20,000-step needs chain ends well within 20 s")
    func longNeedsChainIsCheckedQuickly() async throws {
        var text = "parallel {\n  s0: sh \"true\"\n"
        for index in 1..<20_000 { text += "  s\(index): sh \"echo {{s\(index - 1).stdout}}\" { needs s\(index - 1) }\n" }
        text += "}\n"
        let check = try await Binary.runBounded(["check", "-"], seconds: 20, stdin: text)
        #expect(!check.timedOut, "still checking after \(check.seconds) s")
        #expect(check.outcome.status == 0 && check.outcome.stdout == "<stdin>: ok (20000 steps)\n", "\(check.outcome.stderr.prefix(300))")
    }

    @Test func missingFile() async throws {
        let outcome = try await Binary.run(["check", "x.workflow"])
        #expect(outcome.status == 2)
        #expect(outcome.stderr == "promise-run: cannot read 'x.workflow': No such file or directory\n")
    }

    @Test func aFolderIsNotAWorkflow() async throws {
        let outcome = try await Binary.run(["check", "workflows"])
        #expect(outcome.status == 2)
        #expect(outcome.stderr == "promise-run: cannot read 'workflows': Is a directory\n")
    }

    @Test func standardInput() async throws {
        let good = try await Binary.run(["check", "-"], stdin: "log \"hi\"\n")
        #expect(good.status == 0)
        #expect(good.stdout == "<stdin>: ok (1 step)\n")
        let bad = try await Binary.run(["check", "-"], stdin: "sleep 5\n")
        #expect(bad.status == 2)
        #expect(bad.stderr.hasPrefix("<stdin>:1:7: error: missing unit in duration '5'"))
    }

    @Test func colorOnlyWhenAskedOrOnATerminal() async throws {
        let file = "Tests/Fixtures/Corpus/02-unknown-statement.workflow"
        #expect(try await Binary.run(["check", "--color", "always", file]).stderr.contains("\u{1B}["))
        #expect(!(try await Binary.run(["check", file]).stderr.contains("\u{1B}[")))
        #expect(!(try await Binary.run(["check", "--color=auto", file], environment: ["NO_COLOR": "1"]).stderr.contains("\u{1B}[")))
    }

    @Test func tenThousandNestedBlocks() async throws {
        let text = String(repeating: "sequence {\n", count: 10_000) + String(repeating: "}\n", count: 10_000)
        let outcome = try await Binary.run(["check", "-"], stdin: text)
        #expect(outcome.exitedNormally)
        #expect(outcome.status == 2)
        #expect(outcome.stderr.contains("error: blocks nested too deeply (the limit is 100)"))
    }
}
