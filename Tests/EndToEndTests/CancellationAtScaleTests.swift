import Foundation
import Testing

/// Issue 20: cancelling many running processes costs O(N), not O(N²).
/// Each teardown used to scan all of /proc for its own group, so 800
/// processes took seconds to end; one scan is now shared by every group
/// being torn down. Shape: 4x the steps take at most about 5x the time.
@Suite("End to end: cancelling at scale")
struct CancellationAtScaleTests {
    private func cancel(_ count: Int, in space: Workspace) async throws -> Double {
        let binary = try #require(Binary.url).path
        let outcome = try await Binary.runCommandOffPool(
            "/usr/bin/env",
            [
                "python3", TestServers.fixture("cancel-at-scale.py"),
                binary, space.folder.path, "\(count)",
            ])
        let fields = outcome.stdout.split(separator: " ")
        #expect(fields.first == "143", "\(count): \(outcome.stdout)\(outcome.stderr)")
        return Double(fields.last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? .infinity
    }

    @Test func cancellingFourTimesTheStepsTakesAtMostAboutFiveTimesAsLong() async throws {
        let space = try Workspace()
        defer { space.remove() }
        // The machine's other work only ever adds time: the best of up to
        // three rounds is the shape (one round sat 3 ms over the line while
        // the whole suite ran on 2 cores).
        var rounds: [(small: Double, large: Double)] = []
        for _ in 0..<3 {
            let small = try await cancel(200, in: space)
            let large = try await cancel(800, in: space)
            rounds.append((small, large))
            if large <= 5 * small + 0.3 { break }
        }
        // The shape alone (O(N), not O(N²)): a wall-time bound of its own
        // failed whenever a build ran beside the suite.
        let best = rounds.min { $0.large - 5 * $0.small < $1.large - 5 * $1.small }!
        #expect(best.large <= 5 * best.small + 0.3, "rounds (200, 800): \(rounds)")
    }
}
