import Foundation
import Glibc
import PromiseEngine
import RunnerSystem
import Testing
import WorkflowModel

@testable import Steps

/// A writer killed part-way leaves the old content or the new, never a
/// part: a child process (this test binary, running `writerLoop` below)
/// rewrites a file over and over until the test SIGKILLs it at a random
/// moment; then the file must hold one whole version.
///
/// The same harness with a plain (truncate and write) writer must find a
/// partial file: that shows the kills do land mid-write, so the atomic
/// result is not luck.
@Suite("Atomic write killed part-way")
struct AtomicWriteKillTests {
    static let fileVariable = "STEPS_TEST_WRITER_FILE"
    static let modeVariable = "STEPS_TEST_WRITER_MODE"
    static let size = 4 << 20

    /// The two versions the writer alternates between: same length,
    /// different bytes, so a mix or a cut is visible.
    static func version(_ index: Int) -> [UInt8] {
        [UInt8](repeating: index == 0 ? UInt8(ascii: "a") : UInt8(ascii: "b"), count: size)
    }

    /// Runs only inside the child process the tests start.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[fileVariable] != nil))
    func writerLoop() throws {
        let environment = ProcessInfo.processInfo.environment
        let path = try #require(environment[Self.fileVariable])
        let atomic = environment[Self.modeVariable] == "atomic"
        let versions = [Self.version(0), Self.version(1)]
        FileHandle.standardOutput.write(Data("WRITER-STARTED \(getpid())\n".utf8))
        var index = 1
        while true {
            let bytes = versions[index % 2]
            if atomic {
                try bytes.withUnsafeBytes { try FileSystem().writeAtomically(path, contents: $0) }
            } else {
                let fd = open(path, O_WRONLY | O_TRUNC | O_CREAT, 0o644)
                try #require(fd >= 0)
                try bytes.withUnsafeBytes { try FileSystem().writeAll(fd, $0, path: path) }
                close(fd)
            }
            index += 1
        }
    }

    /// What the file held after each kill.
    private enum Found: Equatable {
        case whole, partial
    }

    /// Starts the writer (in `mode`), kills it after a random delay, and
    /// reports what the file holds; `rounds` times.
    private func killWriter(mode: String, rounds: Int) async throws -> (found: [Found], temporaryLeft: Int) {
        let folder = TemporaryFolder()
        let target = folder.file("data.bin")
        try Data(Self.version(0)).write(to: URL(fileURLWithPath: target))
        let runner = SystemStepRunner()
        var environment = testEnvironment
        environment[Self.fileVariable] = target
        environment[Self.modeVariable] = mode
        let me = try #require(realpath("/proc/self/exe", nil))
        defer { free(me) }
        let step = ResolvedStep.exec(
            arguments: [
                String(cString: me), "--testing-library", "swift-testing",
                "--filter", "AtomicWriteKillTests/writerLoop",
            ].map { $0 },
            process: ResolvedProcessOptions())
        var found: [Found] = []
        var temporaryLeft = 0
        for _ in 0..<rounds {
            let lines = LineCollector()
            let context = StepContext(id: "writer", workingDirectory: folder.path, environment: environment, output: lines)
            let writer = runner.run(step, in: context)
            let started = await eventually(timeout: .seconds(120)) {
                lines.lines(.stdout).contains { $0.hasPrefix("WRITER-STARTED") }
            }
            try #require(started, "the writer did not start: \(lines.lines(.stdout)) \(lines.lines(.stderr))")
            let line = try #require(lines.lines(.stdout).first { $0.hasPrefix("WRITER-STARTED") })
            let pid = try #require(pid_t(line.split(separator: " ").last ?? ""))
            try await Task.sleep(for: .milliseconds(Int.random(in: 50...400)))
            kill(pid, SIGKILL)
            let failed = try #require(failure(await outcome(of: writer)))
            #expect(failed.kind == .signal)

            let content = try Data(contentsOf: URL(fileURLWithPath: target))
            let whole =
                content.count == Self.size
                && (content.allSatisfy { $0 == UInt8(ascii: "a") }
                    || content.allSatisfy { $0 == UInt8(ascii: "b") })
            found.append(whole ? .whole : .partial)
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".tmp") }
            temporaryLeft += leftovers.count
            for name in leftovers { unlink(folder.file(name)) }
        }
        try await runner.shutdown().value
        return (found, temporaryLeft)
    }

    @Test func theAtomicWriterLeavesAWholeVersion() async throws {
        let (found, temporaryLeft) = try await killWriter(mode: "atomic", rounds: 8)
        #expect(found == Array(repeating: .whole, count: 8))
        // A killed atomic writer leaves its temporary file: at least one
        // kill landed between creating it and renaming it.
        #expect(temporaryLeft > 0)
    }

    @Test func aPlainWriterKilledTheSameWayLeavesAPartialFile() async throws {
        let (found, _) = try await killWriter(mode: "plain", rounds: 8)
        #expect(found.contains(.partial))
    }
}
