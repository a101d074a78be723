import Testing

@testable import PromiseEngine

#if canImport(Glibc)
import Synchronization
import Glibc
#endif

// The promise's lock is not recursive. Debug builds catch a thread taking
// it twice (a release build would spin forever, as on any lock that is
// not recursive). Contention is in StressTests.

@Suite("Spin lock")
struct SpinLockTests {
    #if DEBUG
    @Test("a thread that takes a promise's lock it already holds stops with a message")
    func reentranceStops() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            // Without the check the child would spin for ever: SIGALRM
            // ends it after 10 s, and the message below is then missing.
            alarm(10)
            let lock = SpinLock()
            lock.lock()
            lock.lock()
        }
        let message = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(message.contains("a promise's lock taken again by the thread that holds it"))
    }
    #endif

    @Test("taken, given back, taken again: the word is free after each unlock")
    func lockUnlock() {
        let lock = SpinLock()
        for _ in 0..<3 {
            lock.lock()
            #expect(lock.word.load(ordering: .relaxed) != 0)
            lock.unlock()
            #expect(lock.word.load(ordering: .relaxed) == 0)
        }
    }
}
