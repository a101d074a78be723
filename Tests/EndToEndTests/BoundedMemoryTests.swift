import Foundation
import Testing

/// Issue 20: memory stays bounded whatever steps print or servers send.
@Suite("End to end: bounded memory")
struct BoundedMemoryTests {
    /// Runs the binary under Tests/Fixtures/measure.py: (exit, output, peak KiB).
    private func measured(_ arguments: [String], in space: Workspace) async throws -> (Int, String, Int) {
        let binary = try #require(Binary.url).path
        let output = space.path("measured.out")
        let outcome = try await Binary.runCommandOffPool(
            "/usr/bin/env",
            [
                "python3", TestServers.fixture("measure.py"), output,
                binary,
            ] + arguments)
        let fields = outcome.stdout.split(separator: " ").map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) }
        let printed = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        return (Int(fields.first ?? "") ?? -1, printed, Int(fields.last ?? "") ?? .max)
    }

    @Test("--output grouped holds each step's last lines within a budget: 4 x 25 MB of output in a few MiB")
    func groupedOutput() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write(
            "grouped.workflow",
            """
            workflow "grouped"
            foreach i in range(1, 4) parallel {
              sh "yes 'line of output from {{i}}' | head -c 25000000; echo 'last line of {{i}}'"
            }
            """)
        let (exit, printed, peak) = try await measured(
            [
                "--output", "grouped", "--color", "never",
                space.path("grouped.workflow"),
            ], in: space)
        #expect(exit == 0)
        #expect(peak < 64 * 1024, "peak \(peak) KiB")
        for index in 1...4 {
            #expect(printed.contains("last line of \(index)"))
        }
        #expect(printed.contains("earlier lines not shown"))
    }

    @Test("a 1 GB chunked body without save stops at the body limit, with a clear error and bounded memory")
    func chunkedBodyWithoutSave() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let base = try await TestServers.plain()
        try space.write(
            "chunked.workflow",
            """
            workflow "chunked"
            big: http GET "\(base)/large?bytes=1000000000&chunked=1"
            """)
        let (exit, printed, peak) = try await measured(["--color", "never", space.path("chunked.workflow")], in: space)
        #expect(exit == 1)
        #expect(printed.contains("at most 67108864 bytes are kept in memory"), "\(printed)")
        #expect(printed.contains("save"))
        #expect(peak < 150 * 1024, "peak \(peak) KiB")
    }

    /// Peak memory (KiB) of `repeat N parallel limit 64 { tick: sleep 0ms }`
    /// for 10,000 and 100,000 runs, each run given `arguments` and then
    /// checked by `check` (with its count).
    private func peaksOverIterations(
        _ arguments: [String], in space: Workspace,
        check: (Int) throws -> Void
    ) async throws -> [Int] {
        var peaks: [Int] = []
        for count in [10_000, 100_000] {
            try space.write(
                "many.workflow",
                """
                workflow "many"
                repeat \(count) parallel limit 64 {
                  tick: sleep 0ms
                }
                """)
            let (exit, printed, peak) = try await measured(["--color", "never"] + arguments + [space.path("many.workflow")], in: space)
            #expect(exit == 0, "\(printed)")
            peaks.append(peak)
            try check(count)
        }
        return peaks
    }

    @Test("memory stays flat however many iterations: 100,000 runs of a label peak where 10,000 do, with a report written")
    func flatOverIterations() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let peaks = try await peaksOverIterations(["--report", "json=\(space.path("r.json"))"], in: space) { count in
            let json = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: space.folder.appendingPathComponent("r.json")))
                    as? [String: Any])
            #expect(((json["stats"] as? [String: Any])?["tick"] as? [String: Any])?["count"] as? Int == count)
            // The first 1,000 runs are listed; the rest are counted.
            #expect((json["steps"] as? [Any])?.count == 1_000)
        }
        // Ten times the iterations, the same memory (within 8 MiB).
        #expect(peaks[1] < peaks[0] + 8 * 1024, "peaks \(peaks) KiB")
    }

    @Test("with --events and --metrics-listen, memory stays flat too: 100,000 runs of a label peak where 10,000 do")
    func flatWhileWatched() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let arguments = ["--events", space.path("events.jsonl"), "--metrics-listen", "127.0.0.1:\(freeLoopbackPort())"]
        let peaks = try await peaksOverIterations(arguments, in: space) { count in
            let lines = try String(contentsOfFile: space.path("events.jsonl"), encoding: .utf8).split(separator: "\n")
            // run-start, a start and an end a run, group-end, run-end.
            #expect(lines.count == 2 * count + 3)
        }
        #expect(peaks[1] < peaks[0] + 8 * 1024, "peaks \(peaks) KiB")
    }

    @Test("with no report to write, a run keeps the steps that did not succeed and counts the rest; a report still gets every step")
    func successesCountedWithoutAReport() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write(
            "many.workflow",
            """
            workflow "many"
            foreach n in range(1, 150) parallel keep-going {
              sh "test {{n}} != 77"
            }
            """)
        let plain = try await Binary.run(["--color", "never", "many.workflow"], in: space.folder)
        #expect(plain.status == 1)
        #expect(plain.stdout.contains("150 steps: 149 succeeded, 1 failed; those that did not succeed:"), "\(plain.stdout)")
        #expect(plain.stdout.contains("sh@3:3[76]"))
        let reported = try await Binary.run(["--color", "never", "--report", "json=r.json", "many.workflow"], in: space.folder)
        #expect(reported.status == 1)
        #expect(reported.stdout.contains("150 steps: 149 succeeded, 1 failed"))
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: space.folder.appendingPathComponent("r.json")))
                as? [String: Any])
        #expect((json["steps"] as? [Any])?.count == 150)
    }
}

/// Issue 20: out of descriptors, process steps wait for others to free
/// some instead of failing.
@Suite("End to end: descriptor limits")
struct DescriptorLimitTests {
    @Test("60 parallel steps under a hard limit of 64 descriptors all run: the later ones wait")
    func stepsWaitForDescriptors() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit") else { return }
        let space = try Workspace()
        defer { space.remove() }
        try space.write(
            "fd.workflow",
            """
            workflow "fd"
            foreach i in range(1, 60) parallel {
              sh "sleep 0.3"
            }
            """)
        let binary = try #require(Binary.url).path
        let outcome = try await Binary.runCommandOffPool(
            "/usr/bin/prlimit",
            [
                "--nofile=64:64", binary, "--color", "never",
                "-j", "60", space.path("fd.workflow"),
            ])
        #expect(outcome.status == 0, "\(outcome.stdout)\(outcome.stderr)")
        #expect(!outcome.stdout.contains("Too many open files"))
    }
}
