import Foundation
import LSPTestSupport
import Testing

/// The files a workflow reads before and while it runs (the workflow,
/// includes, `lines(...)`, `dotenv`, `--var-file`, `--env-file`) are read
/// only when they are regular files of at most 64 MiB: a device, a FIFO or
/// a huge file is refused at once with a clear reason, never read until
/// memory runs out or waited on forever. Errors in them name the place,
/// never the text (such files hold secrets).
@Suite("End to end: the files a workflow reads")
struct WorkflowInputFilesTests {
    /// A FIFO named `name` in the workspace.
    private func fifo(_ space: Workspace, _ name: String) throws {
        #expect(mkfifo(space.path(name), 0o600) == 0)
    }

    @Test("check refuses an include of a device or a FIFO at once: exit 2 at the include's place, no crash, no hang")
    func includeOfDeviceOrFIFO() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try fifo(space, "pipe")
        try space.write("zero.workflow", "include \"/dev/zero\"\nlog \"x\"\n")
        try space.write("fifo.workflow", "log \"x\"\ninclude \"pipe\"\n")
        let zero = try await Binary.runBounded(["check", "--color", "never", "zero.workflow"], seconds: 20, in: space.folder)
        #expect(!zero.timedOut && zero.outcome.status == 2, "\(zero.outcome.status) \(zero.outcome.stderr.prefix(300))")
        #expect(
            zero.outcome.stderr.contains("zero.workflow:1:9: error: cannot include '/dev/zero': a character device, not a regular file"),
            "\(zero.outcome.stderr.prefix(300))")
        let pipe = try await Binary.runBounded(["check", "--color", "never", "fifo.workflow"], seconds: 20, in: space.folder)
        #expect(!pipe.timedOut && pipe.outcome.status == 2, "\(pipe.outcome.status) \(pipe.outcome.stderr.prefix(300))")
        #expect(
            pipe.outcome.stderr.contains("fifo.workflow:2:9: error: cannot include 'pipe': a FIFO, not a regular file"),
            "\(pipe.outcome.stderr.prefix(300))")
    }

    @Test("a workflow or an include larger than 64 MiB is refused with the limit, before it is read")
    func includeOverTheLimit() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("huge.workflow", "")
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: space.path("huge.workflow")))
        try handle.truncate(atOffset: 64 << 20 + 1)
        try handle.close()
        try space.write("main.workflow", "include \"huge.workflow\"\n")
        let included = try await Binary.runBounded(["check", "--color", "never", "main.workflow"], seconds: 20, in: space.folder)
        #expect(included.outcome.status == 2)
        #expect(
            included.outcome.stderr.contains("main.workflow:1:9: error: cannot include 'huge.workflow': 67108865 bytes, more than the 64 MiB limit"),
            "\(included.outcome.stderr.prefix(300))")
        let direct = try await Binary.runBounded(["check", "huge.workflow"], seconds: 20, in: space.folder)
        #expect(direct.outcome.status == 2)
        #expect(direct.outcome.stderr.contains("cannot read 'huge.workflow': 67108865 bytes, more than the 64 MiB limit"))
    }

    @Test("lines() and dotenv of a device or a FIFO fail their step with kind file, and the run ends")
    func linesAndDotenvOfDeviceOrFIFO() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try fifo(space, "pipe")
        try space.write(
            "test.workflow",
            """
            a: foreach x in lines("/dev/zero") { log "{{x}}" }
            catch file { log "=a {{error.message}}" }
            b: sequence {
              dotenv "pipe"
              log "never"
            }
            catch file { log "=b {{error.message}}" }
            """)
        let run = try await Binary.runBounded(["--color", "never", "test.workflow"], seconds: 20, in: space.folder)
        #expect(!run.timedOut && run.outcome.status == 0, "\(run.outcome.status) \(run.outcome.stderr.prefix(300))")
        let lines = run.outcome.stdout.split(separator: "\n").filter { $0.hasPrefix("=") }
        #expect(
            lines == [
                "=a lines(\"/dev/zero\"): a character device, not a regular file; only regular files are read here",
                "=b dotenv pipe: a FIFO, not a regular file; only regular files are read here",
            ], "\(run.outcome.stdout)")
    }

    @Test("--var-file, --env-file and the workflow itself as a FIFO or a device: exit 2 at once")
    func optionFilesOfDeviceOrFIFO() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try fifo(space, "pipe")
        try space.write("test.workflow", "log \"x\"\n")
        for arguments in [
            ["--var-file", "pipe", "test.workflow"], ["--env-file", "/dev/zero", "test.workflow"],
            ["--env-file", "pipe", "test.workflow"], ["check", "pipe"], ["check", "/dev/zero"],
        ] {
            let run = try await Binary.runBounded(arguments, seconds: 20, in: space.folder)
            #expect(!run.timedOut && run.outcome.status == 2, "\(arguments): \(run.outcome.status) \(run.outcome.stderr.prefix(300))")
            #expect(run.outcome.stderr.contains("not a regular file"), "\(arguments): \(run.outcome.stderr.prefix(300))")
        }
    }

    @Test("the language server answers a document that includes a FIFO, with the include's error")
    func languageServerWithFIFOInclude() async throws {
        let client = try LSPClient()
        #expect(mkfifo(client.folder.appendingPathComponent("pipe").path, 0o600) == 0)
        _ = try client.start()
        try client.open("main.workflow", "include \"pipe\"\nlog \"x\"\n")
        let diagnostics = try client.diagnostics(for: client.uri("main.workflow"))
        let messages = diagnostics.compactMap { $0["message"] as? String }
        #expect(messages.contains { $0.contains("cannot include 'pipe': a FIFO, not a regular file") }, "\(messages)")
        let symbols = try client.request("textDocument/documentSymbol", ["textDocument": ["uri": client.uri("main.workflow")]])
        #expect(symbols["result"] != nil)
        #expect(try client.stop() == 0)
    }

    @Test("a bad line of --var-file, --env-file or dotenv is reported as PATH:LINE and what is wrong, never its text")
    func badLinesAreNotEchoed() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let secret = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7"
        try space.write("key.env", "GOOD=1\n-----BEGIN PRIVATE KEY-----\n\(secret)\n")
        try space.write("name.env", "\(secret)+/x==\n")
        try space.write("quoted.env", "KEY='a' \(secret)\n")
        try space.write("test.workflow", "log \"x\"\n")
        let varFile = try await Binary.run(["--var-file", "key.env", "test.workflow"], in: space.folder)
        #expect(varFile.status == 2)
        #expect(varFile.stderr.contains("key.env:2: expected NAME=VALUE"), "\(varFile.stderr)")
        let varName = try await Binary.run(["--var-file", "name.env", "test.workflow"], in: space.folder)
        #expect(varName.status == 2)
        #expect(varName.stderr.contains("name.env:1: the text before '=' is not a variable name"), "\(varName.stderr)")
        for file in ["key.env", "name.env", "quoted.env"] {
            let envFile = try await Binary.run(["--env-file", file, "test.workflow"], in: space.folder)
            #expect(envFile.status == 2)
            #expect(envFile.stderr.contains("\(file):"), "\(envFile.stderr)")
            let dotenv = try await space.run("dotenv \"\(file)\"\nlog \"x\"\n")
            #expect(dotenv.status == 1)
            for output in [varFile.stderr, varName.stderr, envFile.stderr, dotenv.stdout, dotenv.stderr, dotenv.reportText ?? ""] {
                #expect(!output.contains("MIIE") && !output.contains("BEGIN"), "\(output)")
            }
        }
    }
}
