import Foundation
import Testing

/// Every file in workflows/ runs, for real, against real processes, files
/// and a loopback HTTP server (its address passed with --var). Each runs in
/// a copy of the folder, so the tests leave the repository as it was.
@Suite("End to end: the example workflows")
struct ExampleWorkflowsTests {
    /// A copy of workflows/ in a temporary folder.
    private func copyOfExamples() throws -> URL {
        let folder = try Binary.temporaryFolder().appendingPathComponent("workflows")
        try FileManager.default.copyItem(at: Binary.packageRoot.appendingPathComponent("workflows"), to: folder)
        return folder
    }

    private func run(_ file: String, _ arguments: [String] = []) async throws -> (Binary.Outcome, URL) {
        let folder = try copyOfExamples()
        let outcome = try await Binary.run(["--color", "never", "--report", "json=report.json"] + arguments + [file], in: folder)
        return (outcome, folder)
    }

    @Test("every example is covered by a test below")
    func everyExampleIsCovered() async throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Binary.packageRoot.appendingPathComponent("workflows").path)
            .filter { $0.hasSuffix(".workflow") }.sorted()
        #expect(
            files == [
                "ci.workflow", "demo.workflow", "fetch-urls.workflow", "file-pipeline.workflow",
                "load-test.workflow", "mirror-race.workflow", "wait-for-service.workflow",
            ])
    }

    @Test("demo: starts its own server, checks it in parallel, stops it")
    func demo() async throws {
        let (outcome, folder) = try await run("demo.workflow", ["--var", "port=\(freeLoopbackPort())"])
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        #expect(outcome.status == 0, "\(outcome.stdout)\(outcome.stderr)")
        #expect(outcome.stdout.contains("server 1.2.3 answered every check"))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("demo-site").path), "the ensure cleaned up")
    }

    @Test("ci: builds the C project, tests, lints and smoke-tests it")
    func ci() async throws {
        let (outcome, folder) = try await run("ci.workflow", ["--report", "junit=junit.xml"])
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        #expect(outcome.status == 0, "\(outcome.stdout)\(outcome.stderr)")
        #expect(outcome.stdout.contains("CI passed: greet 1.2.0"))
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("junit.xml").path))
    }

    @Test("ci: a broken build fails the run with exit 1 and says where")
    func ciFailing() async throws {
        let (outcome, folder) = try await run("ci.workflow", ["--var", "cc=false"])
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        #expect(outcome.status == 1)
        #expect(outcome.stdout.contains("CI failed in build (exit)"))
    }

    @Test("load-test: logs in, ramps up on schedule, holds 50/s under its thresholds; the summary says so")
    func loadTest() async throws {
        let (outcome, folder) = try await run(
            "load-test.workflow",
            [
                "--var", "base=\(try await ExampleServer.url())",
                "--report", "markdown=load.md", "--report", "junit=junit.xml",
            ])
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        #expect(outcome.status == 0, "\(outcome.stdout)\(outcome.stderr)")
        #expect(outcome.stdout.contains("steady at 50/s for 3s: every threshold held"))
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("report.json")))
                as? [String: Any])
        let stats = try #require(report["stats"] as? [String: Any])
        // Exactly the iterations each stage plans: the ramp's integral
        // (0 to 50/s over 2 s: 50), and 3 s at 50/s.
        #expect((stats["climb"] as? [String: Any])?["count"] as? Int == 50)
        #expect((stats["item"] as? [String: Any])?["count"] as? Int == 150)
        let summary = (try? String(contentsOf: folder.appendingPathComponent("load.md"), encoding: .utf8)) ?? ""
        #expect(summary.contains("| `steady` | `latency p95 < 500ms` | ✅ held |"), "\(summary)")
        #expect(summary.contains("### Statistics"))
        // The cookbook shows this very workflow.
        let example = try String(contentsOf: Binary.packageRoot.appendingPathComponent("workflows/load-test.workflow"), encoding: .utf8)
        let cookbook = try String(contentsOf: Binary.packageRoot.appendingPathComponent("docs/cookbook.md"), encoding: .utf8)
        let statements = example.split(separator: "\n", omittingEmptySubsequences: false).drop { $0.hasPrefix("#") }
            .joined(separator: "\n").trimmingCharacters(in: .newlines)
        #expect(cookbook.contains("```workflow no-run\n" + statements + "\n```"), "docs/cookbook.md shows workflows/load-test.workflow")
        // Each threshold is a JUnit test case, named as written.
        let junit = (try? String(contentsOf: folder.appendingPathComponent("junit.xml"), encoding: .utf8)) ?? ""
        #expect(junit.contains("<testcase name=\"rate &gt;= 40/s\" classname=\"load-test.steady\""), "\(junit)")
    }

    @Test("fetch-urls: every URL fetched, checked and saved")
    func fetchURLs() async throws {
        let (outcome, folder) = try await run("fetch-urls.workflow", ["--var", "base=\(try await ExampleServer.url())"])
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        #expect(outcome.status == 0, "\(outcome.stdout)\(outcome.stderr)")
        #expect(outcome.stdout.contains("fetched 5 documents into fetched"))
        let saved = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("fetched").path)
        #expect(saved.sorted() == ["1.json", "2.json", "3.json", "alice.json", "bob.json"])
    }

    @Test("wait-for-service: polls until up, then checks readiness")
    func waitForService() async throws {
        let (outcome, folder) = try await run("wait-for-service.workflow", ["--var", "base=\(try await ExampleServer.url())"])
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        #expect(outcome.status == 0, "\(outcome.stdout)\(outcome.stderr)")
        #expect(outcome.stdout.contains("service 1.4.2 is ready"))
    }

    @Test("wait-for-service: gives up with a clear message when nothing answers")
    func waitForServiceGivesUp() async throws {
        let (outcome, folder) = try await run(
            "wait-for-service.workflow",
            [
                "--var", "base=http://127.0.0.1:\(freeLoopbackPort())",
                "--timeout", "2m",
            ])
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        #expect(outcome.status == 1)
        #expect(outcome.stdout.contains("did not come up"))
    }

    @Test("mirror-race: the fast mirrors fail, the fallback serves, the download is verified")
    func mirrorRace() async throws {
        let server = try await ExampleServer.url()
        let (outcome, folder) = try await run(
            "mirror-race.workflow",
            [
                "--var", "mirror_a=\(server)/down", "--var", "mirror_b=\(server)/down", "--var", "fallback=\(server)",
            ])
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        #expect(outcome.status == 0, "\(outcome.stdout)\(outcome.stderr)")
        #expect(outcome.stdout.contains("trying the fallback"))
        let size = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("downloads/tool-1.0.tar.gz").path)[.size] as? Int
        #expect(size == 64 * 1024)
    }

    @Test("file-pipeline: counts every CSV file and writes a summary")
    func filePipeline() async throws {
        let (outcome, folder) = try await run("file-pipeline.workflow")
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        #expect(outcome.status == 0, "\(outcome.stdout)\(outcome.stderr)")
        let summary = try String(contentsOf: folder.appendingPathComponent("pipeline-out/summary.txt"), encoding: .utf8)
        #expect(summary == "rows per file\nletters 2\nnumbers 3\n")
    }
}
