import Foundation
import Glibc
import PromiseEngine
import Testing
import WorkflowModel

@testable import Steps

@Suite("HTTP save")
struct HTTPSaveTests {
    let runner = SystemStepRunner()

    /// The names in a folder (temporary files included).
    private func names(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    @Test func saveStreamsTheBodyIntoTheFileWithProgress() async throws {
        let folder = TemporaryFolder()
        let log = TransferLog()
        let context = StepContext(
            id: "t", workingDirectory: folder.path, environment: [:],
            transfer: { received, expected in log.record(received, expected) })
        let size = 3_000_000
        // Smaller than the body: the body never has to fit in memory.
        let small = SystemStepRunner(configuration: StepsConfiguration(bodyLimit: 100_000))
        // The body comes 200 ms after the head: the progress handler,
        // attached just after the start, sees the fractions in between.
        let promise = small.run(
            http(.GET, try await HTTPTestServer.url("/large?bytes=\(size)&ms=200"), save: "out/big.bin"),
            in: context)
        let fractions = ProgressLog()
        promise.onProgress { fractions.record($0) }
        let result = try #require(value(await outcome(of: promise)))
        let target = folder.file("out/big.bin")
        #expect(result.body?.text == "")
        #expect(result.body?.totalBytes == size)
        #expect(result.path == target)
        let attributes = try FileManager.default.attributesOfItem(atPath: target)
        #expect((attributes[.size] as? Int) == size)
        #expect(names(folder.file("out")) == ["big.bin"], "no temporary file left")
        #expect(log.last == Int64(size))
        #expect(log.lastExpected == Int64(size))
        #expect(log.count > 1)
        #expect(fractions.values.contains { $0 > 0 && $0 < 1 })
        #expect(fractions.values.last == 1)
    }

    @Test func aFailedStatusLeavesTheOldFileAndNoTemporaryFile() async throws {
        let folder = TemporaryFolder()
        try "old content".write(toFile: folder.file("page.html"), atomically: true, encoding: .utf8)
        let failed = try #require(
            failure(
                await run(
                    http(.GET, try await HTTPTestServer.url("/status/404"), save: "page.html"),
                    runner, in: folder.context())))
        #expect(failed.kind == .http)
        #expect(try String(contentsOfFile: folder.file("page.html"), encoding: .utf8) == "old content")
        #expect(names(folder.path) == ["page.html"])
    }

    @Test func aCancelledSaveLeavesNoFile() async throws {
        let folder = TemporaryFolder()
        let log = TransferLog()
        let context = StepContext(
            id: "t", workingDirectory: folder.path, environment: [:],
            transfer: { received, _ in log.record(received) })
        let promise = runner.run(http(.GET, try await HTTPTestServer.url("/trickle"), save: "partial.bin"), in: context)
        #expect(await eventually { log.last >= 2 })
        #expect(names(folder.path).count == 1, "the temporary file is being written")
        promise.cancel()
        #expect(await outcome(of: promise).isCancelled)
        #expect(names(folder.path).isEmpty)
    }

    @Test func bodyExpectationsOnASavedBodySayWhy() async throws {
        let folder = TemporaryFolder()
        let failed = try #require(
            failure(
                await run(
                    http(.GET, try await HTTPTestServer.url("/hello"), save: "hello.txt", expect: [.contains(.body, "hello")]),
                    runner, in: folder.context())))
        #expect(failed.kind == .expect)
        #expect(failed.message.contains("saved to"))
        #expect(!FileManager.default.fileExists(atPath: folder.file("hello.txt")))
    }
}

/// Progress fractions a promise reported.
final class ProgressLog: Sendable {
    private let fractions = Lock<[Double]>([])

    func record(_ fraction: Double) { fractions.withLock { $0.append(fraction) } }

    var values: [Double] { fractions.withLock { $0 } }
}
