import Foundation
import Testing

/// Issue 39, item 23: a stopping signal at any moment of a step's start
/// leaves no process of the run behind. A child between its spawn and its
/// place in the runner's table is in no table and, until its exec, shows
/// promise-run's own environment without its step's mark: the stop at
/// once (a second signal) used to exit while such a start was under way,
/// or before a SIGKILL it had sent had taken effect, and the child lived
/// on (7 of 400 tries on a loaded machine; docs/steps.md, "Processes").
///
/// Driven by Tests/Fixtures/signal-at-spawn.py, in a process of its own (as
/// the other signal tests): one `sh` step, six in parallel, a parallel
/// foreach of short steps (the spawning threads busy), a chain of short
/// steps; SIGINT or SIGTERM 0-80 ms after the handler is in place (a fixed
/// seed), a third of the tries signalled again 0-20 ms later; after each,
/// no live process with the try's tag in its environment, and the ensure
/// ran when the run had started and one signal came.
@Suite("End to end: a signal at any moment of a step's start")
struct SignalsAtSpawnTests {
    @Test func noProcessOutlivesASignalAtAStart() async throws {
        // 240 tries, two at a time; none starts after 60 s.
        let lines = try await SignalsAtStartTests.runFixture("signal-at-spawn.py", ["240", "23", "2", "60"])
        let problems = lines.filter { !$0.hasPrefix("done ") }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        let done = try #require(lines.last?.split(separator: " "))
        #expect(done.count == 6 && done[2] == "0" && done[3] == "0", "\(lines.last ?? "")")
        // Enough tries to matter even on a loaded machine, and some whose
        // step had started and whose ensure ran.
        #expect((Int(done.count == 6 ? done[1] : "") ?? 0) >= 100, "\(lines.last ?? "")")
        #expect((Int(done.count == 6 ? done[4] : "") ?? 0) > 0, "\(lines.last ?? "")")
    }
}
