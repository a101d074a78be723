import Foundation
import Testing

/// Mutated workflows through the real binary: every run ends with exit 0,
/// or exit 2 with a diagnostic; never a crash.
@Suite("Fuzzing the binary")
struct FuzzBinaryTests {
    @Test func mutatedWorkflowsEndWithZeroOrTwo() throws {
        let folders = ["workflows", "Tests/Fixtures/Spec", "Tests/Fixtures/Corpus"].map { Binary.packageRoot.appendingPathComponent($0) }
        let seeds = try folders.flatMap { folder in
            try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".workflow") }.sorted()
                .map { try Data(contentsOf: folder.appendingPathComponent($0)) }
        }
        #expect(seeds.count > 40)
        var state: UInt64 = 1234
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33)
        }
        let fragments = ["{", "}", "\"", "{{", "}}", "\n", "parallel {", "needs x", "catch {", "'", "\\", "é"]
        for round in 0..<40 {
            var bytes = [UInt8](seeds[round % seeds.count])
            for _ in 0..<(1 + next() % 4) {
                let position = bytes.isEmpty ? 0 : next() % bytes.count
                switch next() % 3 {
                case 0 where !bytes.isEmpty: bytes.remove(at: position)
                case 1: bytes.insert(contentsOf: Array(fragments[next() % fragments.count].utf8), at: position)
                default: bytes.insert(UInt8(truncatingIfNeeded: next()), at: position)
                }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            let outcome = try Binary.run(["check", "-"], stdin: text)
            #expect(outcome.exitedNormally, "round \(round) crashed")
            #expect(outcome.status == 0 || outcome.status == 2, "round \(round): exit \(outcome.status)")
            if outcome.status == 2 {
                #expect(outcome.stderr.contains("error: "), "round \(round): no diagnostic")
            }
        }
    }
}
